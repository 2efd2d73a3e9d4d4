package dev.berth.core.agent;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/**
 * The client end of a terminal, as {@link DataPlane#attach} feeds it: output frames (binary) and
 * the agent's messages (text) in order. Each returned stage completes once the frame reached the
 * client; the next frame is not taken before, so a slow client slows only its own terminal instead
 * of piling output up in the control plane.
 */
public interface AttachPeer {

  CompletionStage<?> binary(ByteBuffer frame);

  CompletionStage<?> text(String frame);

  /** The agent closed the terminal with a WebSocket status and reason. */
  void closed(int status, String reason);

  /** The agent went away without closing. */
  void failed(Throwable error);
}
