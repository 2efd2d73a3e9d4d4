package dev.berth.protocol.wire;

/**
 * The archive stream of a checkpoint ({@code POST checkpoint/prepare}'s answer) and of a restore
 * ({@code POST restore}'s body): zstd-compressed tar, with what it preserves listed in a header.
 */
public final class ArchiveWire {

  /** The media type of an archive stream. */
  public static final String CONTENT_TYPE = "application/zstd";

  /**
   * The header in which the agent lists, comma-separated, what the streamed archive preserves (the
   * control plane records it with the archive).
   */
  public static final String CONTENTS_HEADER = "X-Berth-Archive-Contents";

  private ArchiveWire() {}
}
