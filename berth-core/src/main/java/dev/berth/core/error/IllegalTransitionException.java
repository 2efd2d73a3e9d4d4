package dev.berth.core.error;

/**
 * An entity was asked to take an event that its transition table does not allow in its current
 * state. The message names the entity, the state, the event and the rule that forbids the move.
 */
public final class IllegalTransitionException extends BerthException {
  private static final long serialVersionUID = 1L;

  private final String from;
  private final String event;

  public IllegalTransitionException(String subject, String from, String event, String rule) {
    super(subject + " cannot take " + event + " in state " + from + ": " + rule);
    this.from = from;
    this.event = event;
  }

  public String from() {
    return from;
  }

  public String event() {
    return event;
  }

  @Override
  public String reason() {
    return "INVALID_STATE";
  }
}
