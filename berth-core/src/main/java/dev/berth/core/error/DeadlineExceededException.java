package dev.berth.core.error;

/** A command arrived after its absolute deadline and was rejected without side effects. */
public final class DeadlineExceededException extends BerthException {
  private static final long serialVersionUID = 1L;

  public DeadlineExceededException(String subject, String deadline, String now) {
    super(subject + " rejected a command whose deadline " + deadline + " passed at " + now);
  }

  @Override
  public String reason() {
    return "DEADLINE_EXCEEDED";
  }
}
