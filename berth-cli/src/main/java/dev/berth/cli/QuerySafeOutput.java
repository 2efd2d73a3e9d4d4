package dev.berth.cli;

import dev.berth.core.terminal.QueryNeutraliser;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * Session output on its way to the user's terminal with every terminal query blanked ({@link
 * QueryNeutraliser}): {@code berth logs} has no input path to the session, so what the terminal
 * would answer a replayed {@code vi} would be typed into the user's own shell once berth exits.
 * Used only when standard output is a terminal; a file or a pipe gets the bytes exactly.
 */
final class QuerySafeOutput extends FilterOutputStream {

  private final QueryNeutraliser neutraliser = new QueryNeutraliser();

  QuerySafeOutput(OutputStream out) {
    super(out);
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(neutraliser.filter(Arrays.copyOfRange(b, off, off + len)));
  }

  /** Writes what is held (an unfinished sequence at the end of the output), as it is. */
  void release() throws IOException {
    out.write(neutraliser.finish());
    out.flush();
  }
}
