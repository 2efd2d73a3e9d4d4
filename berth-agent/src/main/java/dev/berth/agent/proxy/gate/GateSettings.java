package dev.berth.agent.proxy.gate;

import dev.berth.core.approval.ApprovalPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * How a credential proxy gates its session's tool calls: which calls wait ({@code policy}), the
 * gateway it asks (the control plane's, speaking the approval-gateway protocol: {@code POST
 * <gateway>/api/requests} with {@code x-api-key}, then {@code GET <gateway>/api/requests/{id}}),
 * the key that names this session to the gateway, and how long a call waits for a decision before
 * it is refused.
 */
public record GateSettings(ApprovalPolicy policy, URI gateway, String key, Duration timeout) {
  public GateSettings {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(gateway, "gateway");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("an approval timeout must be positive, was " + timeout);
    }
  }

  @Override
  public String toString() {
    // Never the key: settings end up in log lines.
    return "GateSettings[" + policy.wireName() + " via " + gateway + ", " + timeout + "]";
  }
}
