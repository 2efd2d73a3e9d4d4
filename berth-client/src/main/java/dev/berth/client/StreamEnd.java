package dev.berth.client;

import java.util.Optional;

/**
 * Why a followed stream ended.
 *
 * @param cursor the offset after the last byte delivered
 * @param detail a sentence for people, as {@code session 3f… is snapshot}
 * @param error the failure, for {@link Reason#FAILED}
 */
public record StreamEnd(
    Reason reason, long cursor, String detail, Optional<RuntimeException> error) {

  /** The kinds of end. */
  public enum Reason {
    /** The caller closed the follow. */
    CLOSED,
    /** The execution finished and all its output was delivered. */
    FINISHED,
    /** The session has no runtime to stream from and will not get one by itself. */
    UNAVAILABLE,
    /** A failure that reconnecting cannot fix (refused, or the stream broke the contract). */
    FAILED
  }
}
