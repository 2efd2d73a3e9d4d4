package dev.berth.protocol.files;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A directory or file of the platform that someone besides the user Berth runs as may reach (see
 * {@link PrivacyRule}); the message names the path, what was found, the rule and the command that
 * fixes it.
 */
public final class NotPrivateException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient Path path;

  NotPrivateException(Path path, String message) {
    super(message);
    this.path = path;
  }

  /** The message it was made with: never null, as the constructor takes one. */
  @Override
  public String getMessage() {
    return Objects.requireNonNull(super.getMessage());
  }

  /** The path that is not private. */
  public Path path() {
    return path;
  }
}
