package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.TranscriptEntry;
import dev.berth.core.session.SessionId;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth transcript ID [-f] [-o json]}: an agent session's transcript, one line per entry
 * (its type and its main field), or the entries as JSON lines. With {@code -f} it keeps printing
 * new entries until Ctrl-C. Passive, as the API's transcript is.
 */
@Command(
    name = "transcript",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = {
      "Prints an agent session's transcript: prompts, answers, tool calls, usage (the turn's,"
          + " then the conversation's), retries, warnings and errors.",
      "Reading it never restores a snapshot or counts as access."
    })
final class TranscriptCommand extends ClientCommand {

  private static final int PAGE = 1000;
  private static final Duration POLL = Duration.ofMillis(500);

  @Parameters(
      paramLabel = "SESSION",
      converter = SessionRef.Converter.class,
      description = SessionRef.DESCRIPTION)
  SessionRef session;

  /** The session {@link #session} names, found at the start of {@code run}. */
  @SuppressWarnings("NullAway.Init")
  SessionId id;

  @Option(
      names = {"-f", "--follow"},
      description = "Keep printing new entries as they come.")
  boolean follow;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = "text (one line per entry) or json (the entries as JSON lines).")
  String format;

  @Option(
      names = "--cursor",
      paramLabel = "N",
      defaultValue = "0",
      description = "Start after this many entries (default: 0, all).")
  long cursor;

  @Override
  int run(BerthClient client) throws Exception {
    id = session.resolve(client);
    if (!format.equals("text") && !format.equals("json")) {
      throw new UsageException("-o must be text or json, was " + format);
    }
    if (cursor < 0) {
      throw new UsageException("--cursor is a count of entries >= 0, was " + cursor);
    }
    PrintWriter out = out();
    long at = cursor;
    while (true) {
      List<TranscriptEntry> page = client.transcript(id, at, PAGE);
      for (TranscriptEntry entry : page) {
        out.println(format.equals("json") ? entry.json() : line(entry));
      }
      out.flush();
      at += page.size();
      if (page.size() < PAGE) {
        if (!follow) {
          return ErrorReporter.OK;
        }
        Thread.sleep(POLL.toMillis());
      }
    }
  }

  /** An entry as a person reads it: its type, then the field that says most. */
  static String line(TranscriptEntry entry) {
    String detail =
        switch (entry.type()) {
          case "turn-started" -> entry.field("prompt").orElse("");
          case "assistant-text" -> entry.field("text").orElse("");
          case "thinking" -> entry.field("summary").orElse("");
          case "tool-call" ->
              entry.field("name").orElse("") + " " + entry.field("input").orElse("");
          case "tool-result" ->
              (entry.field("error").orElse("false").equals("true") ? "error, " : "ok, ")
                  + entry.field("size").orElse("?")
                  + " bytes";
          case "usage" -> usage(entry);
          case "retry" ->
              "attempt "
                  + entry.field("attempt").orElse("?")
                  + entry.field("maxAttempts").map(m -> " of " + m).orElse("")
                  + entry.field("delayMs").map(d -> " in " + d + " ms").orElse("")
                  + ": "
                  + entry.field("status").map(s -> s + " ").orElse("")
                  + entry.field("message").orElse("");
          case "warning" -> entry.field("message").orElse("");
          case "permission-denied" ->
              entry.field("tool").orElse("") + ": " + entry.field("message").orElse("");
          case "error" -> entry.field("message").orElse("");
          case "turn-finished" -> entry.field("outcome").orElse("");
          default -> entry.json();
        };
    return Escape.text(entry.type() + "  " + detail.replace("\n", "\\n"));
  }

  /**
   * The turn's own tokens and cost, then the conversation's running totals where the CLI reported
   * them: {@code 10 in, 5 out, $0.00014 (conversation: 20 in, 10 out, $0.00028)}.
   */
  private static String usage(TranscriptEntry entry) {
    String turn =
        entry.field("inputTokens").orElse("?")
            + " in, "
            + entry.field("outputTokens").orElse("?")
            + " out"
            + entry.field("costUsd").map(c -> ", $" + c).orElse("");
    List<String> totals = new java.util.ArrayList<>();
    entry.field("totalInputTokens").ifPresent(t -> totals.add(t + " in"));
    entry.field("totalOutputTokens").ifPresent(t -> totals.add(t + " out"));
    entry.field("totalCostUsd").ifPresent(t -> totals.add("$" + t));
    return totals.isEmpty() ? turn : turn + " (conversation: " + String.join(", ", totals) + ")";
  }
}
