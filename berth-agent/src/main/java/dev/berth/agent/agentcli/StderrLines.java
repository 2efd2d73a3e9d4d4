package dev.berth.agent.agentcli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A CLI's standard error as transcript entries: whole lines, each a {@code warning} or an {@code
 * error} (the byte log keeps the text itself, as it came).
 *
 * <h2>The rule</h2>
 *
 * <ol>
 *   <li>A line that starts with white space continues the one before it (a stack trace is one entry
 *       with the line that introduced it) and takes its class. Blank lines are dropped.
 *   <li>The first of a line's first three words that names a level decides, brackets, parentheses
 *       and a closing colon left aside, in any case: {@code warning}, {@code warn}, {@code note},
 *       {@code notice}, {@code info}, {@code debug}, {@code trace}, and any word ending in {@code
 *       warning} ({@code DeprecationWarning}) make a warning; {@code error}, {@code err}, {@code
 *       fatal}, {@code panic}, {@code critical}, and any word ending in {@code error} ({@code
 *       TypeError}) an error. So {@code WARNING: proceeding...}, {@code (node:7) [DEP0040]
 *       DeprecationWarning: ...} and a log line {@code 2026-01-01T00:00:00Z WARN ...} are warnings.
 *   <li>A line with no level word is an error when it says something failed: it contains {@code
 *       error}, {@code fail}, {@code fatal}, {@code panic}, {@code exception}, {@code traceback},
 *       {@code denied}, {@code cannot}, {@code can't}, {@code unable} or {@code not found};
 *       anything else is a notice, a warning (Codex's {@code Reading additional input from
 *       stdin...}).
 * </ol>
 *
 * A run gives the transcript at most {@link #MAX_ENTRIES} entries of its standard error, each at
 * most {@link #MAX_ENTRY} characters; then one warning says the rest is in the output only. Not
 * thread-safe: one per run, fed by its standard error's reader.
 */
final class StderrLines {

  static final int MAX_ENTRIES = 100;
  static final int MAX_ENTRY = 4000;
  static final String MORE = "[berth: further standard error of this run is in the output only]";

  private static final Set<String> WARNING_WORDS =
      Set.of("warning", "warn", "note", "notice", "info", "debug", "trace");
  private static final Set<String> ERROR_WORDS =
      Set.of("error", "err", "fatal", "panic", "critical");
  private static final Pattern FAILURE =
      Pattern.compile(
          "error|fail|fatal|panic|exception|traceback|denied|cannot|can't|unable|not found",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern WORD_EDGES = Pattern.compile("^[\\[(<]+|[\\])>:,]+$");

  private final UnaryOperator<String> redact;
  private final StringBuilder partial = new StringBuilder();
  private @Nullable StringBuilder entry;
  private boolean entryIsError;
  private int entries;

  /** Entries as the CLI wrote them (for a run that holds no secret). */
  StderrLines() {
    this(UnaryOperator.identity());
  }

  /**
   * Entries passed through {@code redact} before they are cut to {@link #MAX_ENTRY}: a secret that
   * straddled the cut would otherwise leave its unredacted start behind.
   */
  StderrLines(UnaryOperator<String> redact) {
    this.redact = redact;
  }

  /**
   * Takes the next piece of standard error, as it was read; the entries it completes. An entry is
   * complete when a line that does not continue it starts, or when the piece ends with the end of a
   * line (the CLI stopped writing for now).
   */
  List<TranscriptEvent> take(String text) {
    List<TranscriptEvent> done = new ArrayList<>();
    partial.append(text);
    int end;
    while ((end = partial.indexOf("\n")) >= 0) {
      String line = partial.substring(0, end);
      partial.delete(0, end + 1);
      line(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line, done);
    }
    if (partial.length() > MAX_ENTRY) {
      // A line that never ends must not grow the node's heap: what is held is taken as a line.
      line(partial.toString(), done);
      partial.setLength(0);
    }
    if (partial.isEmpty()) {
      flush(done);
    }
    return done;
  }

  /** Standard error ended: what is still held, a last line without its end included. */
  List<TranscriptEvent> finish() {
    List<TranscriptEvent> done = new ArrayList<>();
    if (!partial.isEmpty()) {
      line(partial.toString(), done);
      partial.setLength(0);
    }
    flush(done);
    return done;
  }

  private void line(String line, List<TranscriptEvent> done) {
    if (line.isBlank()) {
      return;
    }
    StringBuilder open = entry;
    if (open != null && Character.isWhitespace(line.charAt(0))) {
      if (open.length() < MAX_ENTRY) {
        open.append('\n').append(line);
      }
      return;
    }
    flush(done);
    entry = new StringBuilder(line);
    entryIsError = isError(line);
  }

  private void flush(List<TranscriptEvent> done) {
    StringBuilder open = entry;
    if (open == null) {
      return;
    }
    entry = null;
    entries++;
    if (entries > MAX_ENTRIES + 1) {
      return;
    }
    if (entries == MAX_ENTRIES + 1) {
      done.add(new TranscriptEvent.Warning(MORE));
      return;
    }
    String whole = redact.apply(open.toString());
    String message = whole.length() <= MAX_ENTRY ? whole : whole.substring(0, MAX_ENTRY) + "…";
    done.add(
        entryIsError ? new TranscriptEvent.Failure(message) : new TranscriptEvent.Warning(message));
  }

  /** The rule's steps 2 and 3 for one line (see the class). */
  static boolean isError(String line) {
    String[] words = line.strip().split("\\s+", 4);
    for (int i = 0; i < Math.min(3, words.length); i++) {
      String word = WORD_EDGES.matcher(words[i]).replaceAll("").toLowerCase(Locale.ROOT);
      if (WARNING_WORDS.contains(word) || word.endsWith("warning")) {
        return false;
      }
      if (ERROR_WORDS.contains(word) || word.endsWith("error")) {
        return true;
      }
    }
    return FAILURE.matcher(line).find();
  }
}
