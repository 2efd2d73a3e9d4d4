package dev.berth.protocol.wire;

import dev.berth.core.agent.DataPlane;
import dev.berth.core.error.PromptTooLargeException;

/**
 * The size limits of a call to a node agent. The two the domain enforces itself before any call
 * (input, prompts) are the core's numbers, named here so that the agent refuses at the same limit
 * the control plane splits and checks at.
 */
public final class WireLimits {

  /** The most bytes of terminal input one call carries (the control plane splits larger input). */
  public static final int MAX_INPUT_BYTES = DataPlane.MAX_INPUT;

  /** The longest prompt, in UTF-8 bytes. */
  public static final int MAX_PROMPT_BYTES = PromptTooLargeException.MAX_PROMPT_BYTES;

  /** The most bytes one output read answers, whatever {@code limit} it asked for. */
  public static final int MAX_READ_BYTES = 1 << 20;

  private WireLimits() {}
}
