package dev.berth.agent.agentcli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The approval gate's marker lines in an answer's text, read back as transcript entries: the
 * credential proxy writes {@code [berth: awaiting approval — <tool> · <id>]} when it holds a tool
 * call and {@code [berth: approved — <tool> · <id>]} or {@code [berth: tool call <rejected|expired|
 * timed out|cancelled|gateway error> — <tool> · <id>: <reason>]} once it is decided, as text of the
 * answer, so every CLI prints them. The text comes in pieces; a line is read once it ends. Not
 * thread-safe: one per run. What it reads is only what a line says: the model can write the same
 * text, so a line becomes an entry only once the proxy confirms it ({@link ApprovalLedger}).
 */
final class ApprovalMarkers {

  /** A line longer than this is no marker; it is let go unread rather than held. */
  static final int MAX_LINE = 8 << 10;

  private static final Pattern MARKER =
      Pattern.compile(
          "\\[berth: (awaiting approval|approved|tool call (?:rejected|expired|timed out|cancelled"
              + "|gateway error)) — (.+?) · ([^\\s\\]]+:[0-9a-f]{32})(?:: ([^\\]]*))?\\]");

  private static final Map<String, String> STATES =
      Map.of(
          "awaiting approval", "pending",
          "approved", "approved",
          "tool call rejected", "rejected",
          "tool call expired", "expired",
          "tool call timed out", "timed_out",
          "tool call cancelled", "cancelled",
          "tool call gateway error", "error");

  private final StringBuilder line = new StringBuilder();

  /** The markers of the lines {@code text} ends. */
  List<TranscriptEvent.Approval> take(String text) {
    List<TranscriptEvent.Approval> found = new ArrayList<>();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        found.addAll(read(line.toString()));
        line.setLength(0);
      } else if (line.length() < MAX_LINE) {
        line.append(c);
      }
    }
    return found;
  }

  /** The markers of the last line, which no newline ended. */
  List<TranscriptEvent.Approval> finish() {
    List<TranscriptEvent.Approval> found = read(line.toString());
    line.setLength(0);
    return found;
  }

  static List<TranscriptEvent.Approval> read(String line) {
    List<TranscriptEvent.Approval> found = new ArrayList<>();
    Matcher marker = MARKER.matcher(line);
    while (marker.find()) {
      found.add(
          new TranscriptEvent.Approval(
              marker.group(3),
              marker.group(2),
              STATES.getOrDefault(marker.group(1), "error"),
              Optional.ofNullable(marker.group(4)).filter(r -> !r.isBlank())));
    }
    return found;
  }
}
