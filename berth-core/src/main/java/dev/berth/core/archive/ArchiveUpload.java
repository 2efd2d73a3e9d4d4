package dev.berth.core.archive;

import dev.berth.core.session.ArchiveRef;
import java.io.OutputStream;
import java.util.List;

/**
 * An archive being written. Nothing is visible until {@link #commit}, which is atomic; closing an
 * uncommitted upload aborts it and leaves no trace.
 */
public interface ArchiveUpload extends AutoCloseable {

  /** Where the archive bytes go; streamed, never held whole in memory. */
  OutputStream stream();

  /** Makes the archive durable and visible, returning its reference with size and digest. */
  ArchiveRef commit(List<String> contents);

  /** Aborts an uncommitted upload; does nothing after commit. */
  @Override
  void close();
}
