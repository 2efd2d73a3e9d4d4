package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.OutputEvent;
import dev.berth.client.OutputFollow;
import dev.berth.client.OutputListener;
import dev.berth.client.ReadResult;
import dev.berth.client.StreamEnd;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth logs ID [-f] [--offset N]}: the session's output bytes, raw, on stdout. Without
 * {@code -f} it reads ({@code POST read}, which counts as access and restores a snapshot) until the
 * end; with {@code -f} it follows the SSE stream (passive) until Ctrl-C or until the session has no
 * runtime any more.
 */
@Command(
    name = "logs",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = {
      "Prints a session's output, raw, from a byte offset.",
      "Without -f this reads the output (which counts as access: an idle session is touched, a"
          + " snapshot restored). With -f it follows the live stream, which never touches or"
          + " restores, until Ctrl-C or until the session stops running.",
      "On a terminal, the sequences in the output that ask the terminal for an answer (cursor"
          + " position, device attributes, colours, the clipboard) are blanked, so that your terminal"
          + " types nothing into your shell; a file or a pipe gets every byte exactly."
    })
final class LogsCommand extends ClientCommand {

  @Parameters(
      paramLabel = "SESSION",
      converter = SessionRef.Converter.class,
      description = SessionRef.DESCRIPTION)
  SessionRef session;

  /** The session {@link #session} names, found at the start of {@code run}. */
  @SuppressWarnings("NullAway.Init")
  SessionId id;

  @Option(
      names = {"-f", "--follow"},
      description = "Follow the output as it is written.")
  boolean follow;

  @Option(
      names = "--offset",
      paramLabel = "N",
      defaultValue = "0",
      description = "Start at this byte offset (default: 0, everything kept).")
  long offset;

  @Override
  int run(BerthClient client) throws Exception {
    id = session.resolve(client);
    if (offset < 0) {
      throw new UsageException("--offset is a byte offset >= 0, was " + offset);
    }
    OutputStream out = environment().stdout();
    if (!environment().terminal().get().outputIsTerminal()) {
      return follow ? follow(client, out) : readAll(client, out);
    }
    QuerySafeOutput safe = new QuerySafeOutput(out);
    try {
      return follow ? follow(client, safe) : readAll(client, safe);
    } finally {
      safe.release();
    }
  }

  private int readAll(BerthClient client, OutputStream out) throws IOException {
    long cursor = offset;
    while (true) {
      ReadResult read = client.read(id, cursor);
      byte[] bytes = read.bytes();
      if (bytes.length == 0 || read.nextOffset() <= cursor) {
        break;
      }
      out.write(bytes);
      cursor = read.nextOffset();
    }
    out.flush();
    return ErrorReporter.OK;
  }

  private int follow(BerthClient client, OutputStream out) throws InterruptedException {
    RawOutput listener = new RawOutput(out);
    OutputFollow follow = client.follow(id, offset, listener);
    listener.follow = follow;
    StreamEnd end = follow.await();
    if (listener.closed) {
      return ErrorReporter.OK;
    }
    return switch (end.reason()) {
      case FAILED -> throw end.error().orElseThrow();
      case UNAVAILABLE -> {
        err().println("berth: " + Escape.text(end.detail()) + "; its output stream ended");
        err().flush();
        yield ErrorReporter.OK;
      }
      case CLOSED, FINISHED -> ErrorReporter.OK;
    };
  }

  /** Writes the bytes as they come; stops the follow quietly when stdout is closed (a pipe). */
  private final class RawOutput implements OutputListener {
    private final OutputStream out;
    volatile @Nullable OutputFollow follow;
    volatile boolean closed;

    RawOutput(OutputStream out) {
      this.out = out;
    }

    @Override
    public void output(OutputEvent.Chunk chunk) {
      write(chunk.bytes());
    }

    @Override
    public void reset(OutputEvent.Reset reset, Optional<ReadResult> reread) {
      err()
          .println(
              "berth: the output was reset at offset "
                  + reset.nextOffset()
                  + "; printing what the session keeps from the start");
      err().flush();
      reread.ifPresent(r -> write(r.bytes()));
    }

    private void write(byte[] bytes) {
      if (closed) {
        return;
      }
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException e) {
        closed = true;
        OutputFollow current = follow;
        if (current != null) {
          current.close();
        }
      }
    }
  }
}
