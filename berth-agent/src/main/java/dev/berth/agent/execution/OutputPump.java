package dev.berth.agent.execution;

import java.io.IOException;
import java.io.InputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a process's output stream, chunk by chunk as it arrives, to where the node keeps it, on a
 * virtual thread of its own, until the stream ends (every process that still held it is gone).
 */
public final class OutputPump {

  /** Takes one chunk: {@code length} bytes of {@code bytes} from {@code offset}. */
  @FunctionalInterface
  public interface Chunks {
    void accept(byte[] bytes, int offset, int length);
  }

  private static final Logger LOG = LoggerFactory.getLogger(OutputPump.class);
  private static final int CHUNK = 64 * 1024;

  private OutputPump() {}

  /**
   * Starts copying {@code in} to {@code chunks}; the thread, which ends with the stream (join it to
   * know everything was taken). A failing read ends it as the end of the stream does; a failing
   * {@code chunks} too, and is logged.
   */
  public static Thread start(String name, InputStream in, Chunks chunks) {
    return start(name, in, chunks, () -> {});
  }

  /** As {@link #start(String, InputStream, Chunks)}, then {@code atEnd} on the same thread. */
  public static Thread start(String name, InputStream in, Chunks chunks, Runnable atEnd) {
    return Thread.ofVirtual()
        .name(name)
        .start(
            () -> {
              copy(name, in, chunks);
              try {
                atEnd.run();
              } catch (RuntimeException e) {
                LOG.warn("{} failed at its end", name, e);
              }
            });
  }

  private static void copy(String name, InputStream in, Chunks chunks) {
    byte[] buffer = new byte[CHUNK];
    try (in) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        chunks.accept(buffer, 0, read);
      }
    } catch (IOException e) {
      LOG.debug("{} ended: {}", name, e.toString());
    } catch (RuntimeException e) {
      LOG.warn("{} failed", name, e);
    }
  }
}
