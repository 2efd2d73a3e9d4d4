package dev.berth.client;

import dev.berth.core.session.SessionId;
import java.util.Base64;
import java.util.Optional;

/**
 * The answer to {@code POST /sessions/{id}/read}: the session's output from {@code offset} to
 * {@code nextOffset}. One read carries at most the server's cap (1 MiB on Berth), so a read of a
 * longer output is short: read again from {@code nextOffset} for what follows, until a read comes
 * back empty.
 *
 * @param session the session after the read, when the server sends it (Berth does; a server that
 *     sends only the id leaves it empty)
 * @param path how the session was served: {@code active}, {@code idle->active->read} or {@code
 *     snapshot->restore->read}
 * @param payload the bytes as text, malformed UTF-8 replaced; {@link #bytes()} is exact
 * @param offset where the returned bytes begin: the requested cursor, or the head of a capped log
 */
public record ReadResult(
    SessionId sessionId,
    Optional<SessionView> session,
    String path,
    String payload,
    String payloadBase64,
    long offset,
    long nextOffset) {

  /**
   * The exact bytes.
   *
   * @throws BerthProtocolException when {@code payloadBase64} is not base64
   */
  public byte[] bytes() {
    try {
      return Base64.getDecoder().decode(payloadBase64 == null ? "" : payloadBase64);
    } catch (IllegalArgumentException e) {
      throw new BerthProtocolException(
          "read of session " + sessionId + " returned a payloadBase64 that is not base64", e);
    }
  }

  /**
   * Checks the contract: the bytes fill {@code [offset, nextOffset)} exactly.
   *
   * @throws BerthProtocolException when they do not
   */
  ReadResult validated() {
    int length = bytes().length;
    if (length > 0 && length != nextOffset - offset) {
      throw new BerthProtocolException(
          "read of session "
              + sessionId
              + " returned "
              + length
              + " bytes for offsets "
              + offset
              + ".."
              + nextOffset);
    }
    return this;
  }
}
