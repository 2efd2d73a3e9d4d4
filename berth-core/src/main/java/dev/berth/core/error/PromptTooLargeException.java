package dev.berth.core.error;

/** An agent session's prompt over 1 MiB: 413, checked before the session is restored. */
public final class PromptTooLargeException extends BerthException {
  private static final long serialVersionUID = 1L;

  /** A prompt is at most 1 MiB of UTF-8 (the original's limit). */
  public static final int MAX_PROMPT_BYTES = 1 << 20;

  public PromptTooLargeException(int bytes) {
    super(
        "prompt exceeds 1 MiB: it is "
            + bytes
            + " bytes of UTF-8, at most "
            + MAX_PROMPT_BYTES
            + " are taken; split it or put the material in a file of the workspace");
  }

  @Override
  public String reason() {
    return "PROMPT_TOO_LARGE";
  }
}
