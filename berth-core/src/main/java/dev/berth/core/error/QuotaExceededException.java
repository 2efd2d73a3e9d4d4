package dev.berth.core.error;

/**
 * A tenant already holds as many sessions as its quota allows. A session holds its slot until its
 * reservation is released, which happens only once its runtime is confirmed gone.
 */
public final class QuotaExceededException extends BerthException {
  private static final long serialVersionUID = 1L;

  private final int held;
  private final int maxSessions;

  /**
   * @param tenant the tenant that asked
   * @param held how many sessions it holds (reservation HELD or UNCERTAIN)
   * @param maxSessions its quota
   */
  public QuotaExceededException(String tenant, int held, int maxSessions) {
    super(
        "tenant "
            + tenant
            + " holds "
            + held
            + " sessions and may hold at most maxSessions="
            + maxSessions
            + ": delete a session and wait until its runtime is confirmed gone (a slot is freed"
            + " only then), or ask the administrator to raise maxSessions");
    this.held = held;
    this.maxSessions = maxSessions;
  }

  public int held() {
    return held;
  }

  public int maxSessions() {
    return maxSessions;
  }

  @Override
  public String reason() {
    return "QUOTA_EXCEEDED";
  }
}
