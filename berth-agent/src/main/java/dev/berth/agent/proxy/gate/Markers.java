package dev.berth.agent.proxy.gate;

/**
 * The lines the proxy writes into an answer around a held call, as text of their own: {@code
 * [berth: awaiting approval — <tool> · <id>]} before it holds, then {@code [berth: approved —
 * <tool> · <id>]} or, for a refused call, {@code [berth: tool call rejected — <tool> · <id>:
 * <reason>]} (also {@code expired}, {@code timed out}, {@code cancelled}, {@code gateway error}).
 * The agent's transcript reads them back into entries of kind {@code approval}, once this proxy's
 * {@link MarkerRecord} confirms it wrote them (the model can print the same text).
 */
public final class Markers {

  private Markers() {}

  public static String awaiting(String tool, String id) {
    return "[berth: awaiting approval — " + tool + " · " + id + "]\n";
  }

  public static String result(String tool, String id, Decision decision) {
    if (decision.lets()) {
      return "[berth: approved — " + tool + " · " + id + "]\n";
    }
    String reason = decision.reason().map(r -> ": " + oneLine(r)).orElse("");
    return "[berth: tool call "
        + decision.verdict().words()
        + " — "
        + tool
        + " · "
        + id
        + reason
        + "]\n";
  }

  /** The state the transcript gives {@code decision}: {@code approved}, {@code timed_out}... */
  public static String state(Decision decision) {
    return switch (decision.verdict()) {
      case APPROVED -> "approved";
      case REJECTED -> "rejected";
      case EXPIRED -> "expired";
      case TIMED_OUT -> "timed_out";
      case CANCELLED -> "cancelled";
      case ERROR -> "error";
    };
  }

  /** What {@link #result} writes of {@code decision} as it is: its reason, on one line. */
  static MarkerRecord.Marker recorded(Decision decision) {
    return new MarkerRecord.Marker(
        state(decision),
        decision.lets() ? java.util.Optional.empty() : decision.reason().map(Markers::oneLine));
  }

  /** A reason on one line, without brackets that would end (or look like) a marker. */
  private static String oneLine(String text) {
    String line = text.replaceAll("[\\r\\n]+", " ").replace('[', '(').replace(']', ')').strip();
    return line.length() <= 500 ? line : line.substring(0, 500) + "…";
  }
}
