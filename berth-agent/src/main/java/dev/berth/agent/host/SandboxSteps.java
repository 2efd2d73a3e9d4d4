package dev.berth.agent.host;

import java.util.function.Supplier;

/** Runs one step of a launch that the sandbox may fail, and reports the failure if it does. */
final class SandboxSteps {

  private SandboxSteps() {}

  /** The step's result; a failure is reported as {@code reason}, then thrown on as it was. */
  static <T> T reported(NodeMeters meters, NodeMeters.SandboxFailure reason, Supplier<T> step) {
    try {
      return step.get();
    } catch (RuntimeException e) {
      meters.sandboxFailed(reason);
      throw e;
    }
  }
}
