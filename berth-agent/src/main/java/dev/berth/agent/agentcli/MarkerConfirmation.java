package dev.berth.agent.agentcli;

import java.util.Objects;
import java.util.Optional;

/**
 * Whether the session's credential proxy wrote an approval marker. The markers are text of the
 * model's answer ({@link ApprovalMarkers}), so the model can write the same text: only a marker the
 * proxy confirms becomes an {@code approval} entry of the transcript, with the tool and reason the
 * proxy recorded. The proxy's side: {@code dev.berth.agent.proxy.gate.MarkerRecord}.
 */
public interface MarkerConfirmation {

  /** What the proxy recorded for a marker it wrote. */
  record Confirmed(String tool, Optional<String> reason) {
    public Confirmed {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** A session without an approval gate: its proxy writes no marker, so none is confirmed. */
  MarkerConfirmation NONE = (approvalId, state) -> Optional.empty();

  /**
   * The proxy's record of its marker of approval {@code approvalId} in {@code state} ({@code
   * pending}, {@code approved}...); empty when it wrote none such, or cannot be asked.
   */
  Optional<Confirmed> confirm(String approvalId, String state);
}
