package dev.berth.server.api;

import dev.berth.core.error.AgentUnreachableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The answer of {@code POST /sessions/{id}/read}: the session and the path, then the members of the
 * agent's {@code OutputRead} passed through byte for byte:
 *
 * <pre>
 * {"session":{…},"path":"active","offset":S,"payload":"…","payloadBase64":"…","nextOffset":E,
 *  "startOffset":H,"reset":false}
 * </pre>
 *
 * <p>The agent's answer is never parsed nor built again: after its opening brace it is copied
 * through a 32 KiB buffer as it arrives, so the control plane holds no more of a read than the
 * agent does (issue 11: it used to hold the answer as text, as a JSON tree and as text again).
 */
final class ReadRelay {

  private static final int BUFFER = 32 << 10;

  private ReadRelay() {}

  /**
   * Checks that the agent's answer is a JSON object, then writes the whole answer to {@code out}.
   * Nothing is written when the check fails.
   *
   * @param runtime names the agent in the error
   * @throws AgentUnreachableException when the agent's answer does not start as a JSON object, or
   *     breaks off before its first byte (502 for the client)
   * @throws IOException when the client or the agent goes away while copying
   */
  static void write(
      JsonMapper json,
      Map<String, Object> session,
      String path,
      String runtime,
      InputStream agentAnswer,
      OutputStream out)
      throws IOException {
    int first;
    try {
      first = agentAnswer.read();
    } catch (IOException e) {
      throw new AgentUnreachableException(runtime, "its output read broke off: " + e, e);
    }
    if (first != '{') {
      throw new AgentUnreachableException(
          runtime,
          "its output read must be a JSON object, but it began with "
              + (first < 0 ? "nothing" : "byte " + first)
              + "; see the node's log");
    }
    out.write("{\"session\":".getBytes(StandardCharsets.US_ASCII));
    out.write(json.writeValueAsBytes(session));
    out.write(",\"path\":".getBytes(StandardCharsets.US_ASCII));
    out.write(json.writeValueAsBytes(path));
    out.write(',');
    byte[] buffer = new byte[BUFFER];
    int n;
    while ((n = agentAnswer.read(buffer)) >= 0) {
      out.write(buffer, 0, n);
    }
    // No flush: completed by the handler, an answer that fits Jetty's buffer goes out in one
    // write with its Content-Length (a flush here made it chunked and cost a second write).
  }
}
