package dev.berth.cli;

import dev.berth.client.AttachConnection;
import dev.berth.client.AttachListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The two directions of {@code berth attach}: keystrokes from the user's terminal to the session,
 * cut at the detach key, and the session's output to the user's terminal, raw and unchanged (the
 * PTY byte stream is the channel R-5.11 (a) lets through; only berth's own notes are escaped).
 */
final class TerminalRelay {

  /** Why the input side stopped. */
  enum End {
    /** The user pressed the detach key. */
    DETACHED,
    /** Standard input ended. */
    INPUT_CLOSED
  }

  private TerminalRelay() {}

  /**
   * Copies {@code in} to {@code send} as it arrives, one send per read, until the detach key (not
   * sent; what was typed before it in the same read is) or the end of input.
   */
  static End pumpInput(InputStream in, Consumer<byte[]> send, DetachKey detach) throws IOException {
    return pumpInput(in, send, detach, new ShellGate());
  }

  /** As {@link #pumpInput(InputStream, Consumer, DetachKey)}, through {@code gate}. */
  static End pumpInput(InputStream in, Consumer<byte[]> send, DetachKey detach, ShellGate gate)
      throws IOException {
    byte[] buffer = new byte[AttachConnection.MAX_INPUT_FRAME];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      int cut = detach.value().isPresent() ? indexOf(buffer, n, detach.value().getAsInt()) : -1;
      int length = cut >= 0 ? cut : n;
      byte[] admitted = length > 0 ? gate.admit(Arrays.copyOf(buffer, length)) : new byte[0];
      if (admitted.length > 0) {
        send.accept(admitted);
      }
      if (cut >= 0) {
        return End.DETACHED;
      }
    }
    return End.INPUT_CLOSED;
  }

  private static int indexOf(byte[] bytes, int length, int value) {
    for (int i = 0; i < length; i++) {
      if ((bytes[i] & 0xff) == value) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Writes the session's output to {@code out} as it comes, and berth's own notes (a refused input,
   * say) as one escaped line; {@code \r\n} because the terminal is in raw mode.
   */
  static AttachListener output(OutputStream out) {
    return output(out, new ShellGate(), DetachKey.parse(DetachKey.DEFAULT));
  }

  /**
   * As {@link #output(OutputStream)}; a shell that exited closes {@code gate} and is told to the
   * user with what to do next.
   */
  static AttachListener output(OutputStream out, ShellGate gate, DetachKey detach) {
    return new AttachListener() {
      @Override
      public void output(byte[] bytes) {
        write(out, bytes);
      }

      @Override
      public void shellExited(int status, int shell) {
        gate.exited(status);
        write(
            out,
            ("\r\nberth: the shell exited with status "
                    + status
                    + "; the session stays active. Press Enter to start a new shell"
                    + (detach.value().isPresent() ? ", or " + detach.describe() + " to detach" : "")
                    + ".\r\n")
                .getBytes(StandardCharsets.UTF_8));
      }

      @Override
      public void error(String reason, String message) {
        write(
            out,
            ("\r\nberth: " + Escape.cell(reason) + ": " + Escape.cell(message) + "\r\n")
                .getBytes(StandardCharsets.UTF_8));
      }
    };
  }

  private static void write(OutputStream out, byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
