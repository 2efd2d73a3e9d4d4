package dev.berth.agent.shell;

import dev.berth.agent.output.OutputSink;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies everything the PTY master yields into the sink, on a platform thread (the read is a
 * blocking native call, which would pin a virtual thread's carrier).
 *
 * <p>End of output: pty4j answers -1 once the shell has exited and nothing is buffered, and Linux
 * answers EIO once every slave descriptor is closed; both end the pump. A sink that throws loses
 * that chunk and the pump goes on: the shell must never block on output because storage failed.
 */
final class OutputPump {
  private static final Logger LOG = LoggerFactory.getLogger(OutputPump.class);
  private static final int CHUNK = 64 * 1024;

  private final InputStream pty;
  private final OutputSink sink;
  private final String session;
  private final CompletableFuture<Void> drained = new CompletableFuture<>();

  private OutputPump(InputStream pty, OutputSink sink, String session) {
    this.pty = pty;
    this.sink = sink;
    this.session = session;
  }

  static OutputPump start(InputStream pty, OutputSink sink, String session, Runnable afterDrain) {
    OutputPump pump = new OutputPump(pty, sink, session);
    Thread.ofPlatform()
        .daemon()
        .name("berth-pty-output-" + session)
        .start(
            () -> {
              pump.run();
              pump.drained.complete(null);
              afterDrain.run();
            });
    return pump;
  }

  /** Completes once the PTY has reported the end of its output. */
  CompletableFuture<Void> drained() {
    return drained;
  }

  private void run() {
    byte[] buffer = new byte[CHUNK];
    boolean sinkFailed = false;
    while (true) {
      int read;
      try {
        read = pty.read(buffer, 0, buffer.length);
      } catch (IOException e) {
        return;
      }
      if (read < 0) {
        return;
      }
      try {
        sink.append(buffer, 0, read);
      } catch (RuntimeException e) {
        if (!sinkFailed) {
          LOG.error("output of {} could not be stored; dropping it and reading on", session, e);
        }
        sinkFailed = true;
      }
    }
  }
}
