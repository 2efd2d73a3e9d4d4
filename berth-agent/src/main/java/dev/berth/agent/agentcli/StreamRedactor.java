package dev.berth.agent.agentcli;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Replaces every secret in a stream of text with {@code [REDACTED]}, also when a secret arrives
 * split across pieces: the longest end of what it was given that could still grow into a secret is
 * held back until the next piece says whether it does ({@link #finish} lets it go). What was
 * returned is never taken back, so a cursor into the output stays valid.
 *
 * <p>Where two secrets overlap, the longer one is replaced. Not thread-safe: one per stream.
 */
public final class StreamRedactor {

  /** What a secret becomes. */
  public static final String MARK = "[REDACTED]";

  private final List<String> secrets;
  private final StringBuilder held = new StringBuilder();

  /**
   * @param secrets the literals to hide; empty ones are ignored
   */
  public StreamRedactor(List<String> secrets) {
    this.secrets =
        secrets.stream()
            .map(s -> Objects.requireNonNull(s, "secret"))
            .filter(s -> !s.isEmpty())
            .distinct()
            .sorted(Comparator.comparingInt(String::length).reversed())
            .toList();
  }

  /** A redactor that hides nothing and holds nothing back. */
  public static StreamRedactor none() {
    return new StreamRedactor(List.of());
  }

  /** The text that is safe to publish now, given {@code piece} after what came before. */
  public String redact(String piece) {
    if (secrets.isEmpty()) {
      return piece;
    }
    held.append(piece);
    return scan(false);
  }

  /** The end of the stream: what was held back, redacted as far as it goes. */
  public String finish() {
    return secrets.isEmpty() ? "" : scan(true);
  }

  private String scan(boolean last) {
    String text = held.toString();
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      if (!last && couldStillGrow(text, i)) {
        break;
      }
      String match = matchAt(text, i);
      if (match != null) {
        out.append(MARK);
        i += match.length();
      } else {
        out.append(text.charAt(i));
        i++;
      }
    }
    held.setLength(0);
    held.append(text, i, text.length());
    return out.toString();
  }

  /** Whether the text from {@code i} on is the beginning of a secret longer than it. */
  private boolean couldStillGrow(String text, int i) {
    int rest = text.length() - i;
    for (String secret : secrets) {
      if (secret.length() > rest && secret.regionMatches(0, text, i, rest)) {
        return true;
      }
    }
    return false;
  }

  private @org.jspecify.annotations.Nullable String matchAt(String text, int i) {
    for (String secret : secrets) {
      if (text.startsWith(secret, i)) {
        return secret;
      }
    }
    return null;
  }
}
