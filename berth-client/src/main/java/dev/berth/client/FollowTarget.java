package dev.berth.client;

import java.util.Optional;

/** What a follow streams, and the questions it asks when the stream drops or resets. */
interface FollowTarget {

  /** For messages, as {@code session 3f…}. */
  String describe();

  /** The stream's path below {@code /api/v1}, with {@code ?offset=}. */
  String streamPath(long cursor);

  /** On a reset: the contract's re-read from 0, when the target has a read route. */
  Optional<ReadResult> reread();

  /**
   * After the stream dropped or ended: why following is over, or empty to reconnect.
   *
   * @throws BerthClientException when asking fails; an {@link BerthUnreachableException} means "try
   *     again later", anything else ends the follow
   */
  Optional<StreamEnd.Reason> over(long cursor, StringBuilder detail);
}
