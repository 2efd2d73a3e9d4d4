package dev.berth.server.api.body;

import dev.berth.core.error.InvalidValueException;
import dev.berth.server.api.StrictJson;
import java.util.Optional;

/**
 * The body of {@code POST /sessions/{id}/approvals/{approvalId}}.
 *
 * @param decision {@code approve} or {@code reject}
 * @param reason why, at most {@value #MAX_REASON} characters; shown to the model when it rejects
 */
public record ApprovalDecisionBody(String decision, Optional<String> reason) {

  public static final int MAX_REASON = 1000;

  public ApprovalDecisionBody {
    if (decision == null) {
      throw new InvalidValueException(
          "invalid input: field \"decision\" is required: approve or reject");
    }
    if (!decision.equals("approve") && !decision.equals("reject")) {
      throw StrictJson.invalidField("decision", "must be approve or reject", decision);
    }
    if (reason.isPresent() && reason.get().length() > MAX_REASON) {
      throw StrictJson.invalidField(
          "reason", "must be at most " + MAX_REASON + " characters", reason.get().length());
    }
  }

  public boolean approves() {
    return decision.equals("approve");
  }
}
