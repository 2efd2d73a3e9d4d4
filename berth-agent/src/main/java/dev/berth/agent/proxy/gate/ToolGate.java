package dev.berth.agent.proxy.gate;

/**
 * Where a held tool call's decision comes from: a gateway that a person (or a rule) answers.
 * Thread-safe: a proxy's exchanges ask at once.
 */
public interface ToolGate {

  /** A fresh id for one call's request ({@code <session>:<32 hex>} for the gateway protocol). */
  String requestId();

  /**
   * Asks whether {@code call} may run, and waits for the answer. Never throws for the gateway's
   * troubles: an unreachable or failing gateway, or no answer in time, is a decision too (the call
   * is refused).
   *
   * @throws InterruptedException when the exchange that holds the call went away
   */
  Decision decide(String requestId, ToolCall call) throws InterruptedException;
}
