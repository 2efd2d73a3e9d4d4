package dev.berth.agent.contract;

import java.util.Objects;

/**
 * What an admitted command answers.
 *
 * @param reply the reply recorded for the command's operation (what its effect returned)
 * @param repeated true when the operation had already been performed and this is the recorded
 *     reply, given without running the effect again
 */
public record CommandOutcome(String reply, boolean repeated) {
  public CommandOutcome {
    Objects.requireNonNull(reply, "reply");
  }
}
