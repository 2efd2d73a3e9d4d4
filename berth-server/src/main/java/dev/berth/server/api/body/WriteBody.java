package dev.berth.server.api.body;

/**
 * The body of {@code POST /sessions/{id}/write}; optional.
 *
 * @param payload the bytes to write, as a string; absent ({@code null}) means the empty string,
 *     which is a valid no-op for a shell. Workload-specific limits (such as a prompt size) are the
 *     service's, checked before any restore.
 */
public record WriteBody(String payload) {
  public WriteBody {
    if (payload == null) {
      payload = "";
    }
  }
}
