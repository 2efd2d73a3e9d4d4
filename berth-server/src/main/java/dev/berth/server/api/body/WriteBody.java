package dev.berth.server.api.body;

/**
 * The body of {@code POST /sessions/{id}/write}; optional.
 *
 * @param payload the bytes to write, as a string; absent ({@code null}) means the empty string,
 *     which is a valid no-op for a shell. Workload-specific limits (such as a prompt size) are the
 *     service's, checked before any restore.
 * @param permissionMode an agent session's permission mode for this prompt only (Claude Code's
 *     {@code default}, {@code acceptEdits}, {@code plan}, {@code dontAsk}, {@code auto}); absent
 *     means {@code default}; a shell takes none
 */
public record WriteBody(String payload, java.util.Optional<String> permissionMode) {
  public WriteBody {
    if (payload == null) {
      payload = "";
    }
    java.util.Objects.requireNonNull(permissionMode, "permissionMode");
  }

  /** A write of {@code payload} with no permission mode (a shell's, or the default turn). */
  public WriteBody(String payload) {
    this(payload, java.util.Optional.empty());
  }
}
