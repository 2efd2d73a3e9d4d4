package dev.berth.client;

/** Where a followed stream is, as the contract names it. */
public enum StreamState {
  /** Opening the first connection. */
  CONNECTING,
  /** Connected and receiving. */
  LIVE,
  /** The connection dropped; waiting out the backoff before the next attempt. */
  RECONNECTING,
  /** Ended; {@link OutputFollow#await()} says why. */
  OFFLINE
}
