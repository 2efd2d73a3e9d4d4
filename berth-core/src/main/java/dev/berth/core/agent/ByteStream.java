package dev.berth.core.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.Optional;

/**
 * An answer of the agent that the control plane relays without reading: an output read or an SSE
 * stream. Copied on in small buffers with a flush after each, so that a stream's events reach the
 * client as they are written and no answer is ever held whole.
 */
public record ByteStream(Optional<String> contentType, InputStream body) implements AutoCloseable {

  private static final int BUFFER = 32 << 10;

  public ByteStream {
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
  }

  /**
   * Copies the rest of the body to {@code to}, flushing after every read, until either side ends.
   */
  public void copyTo(OutputStream to) throws IOException {
    byte[] buffer = new byte[BUFFER];
    int n;
    while ((n = body.read(buffer)) >= 0) {
      to.write(buffer, 0, n);
      to.flush();
    }
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the agent's answer", e);
    }
  }
}
