package dev.berth.core.agent;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/** The agent end of an open terminal: where the client's frames go, and how it is dropped. */
public interface AttachLink {

  /** Input bytes; the stage completes once the agent took them. */
  CompletionStage<?> binary(ByteBuffer frame);

  /** A control message (a resize); the stage completes once the agent took it. */
  CompletionStage<?> text(String frame);

  /** Drops the terminal at once (the client left). */
  void abort();
}
