package dev.berth.core.idle;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the runtime says about work in progress, for the idle policy.
 *
 * @param shellBusy a foreground job runs in the shell (its terminal's foreground group is not the
 *     shell's)
 * @param executionRunning an execution runs beside the shell
 * @param busySince since when the runtime has been seen busy without a break, if it is
 * @param approvalPendingUntil when the last of the session's tool calls that wait for a decision
 *     expires, if one waits: a human is asked, and suspending would cancel the question (busy work
 *     all the same: it holds the session at most {@code maxBusy} from {@code busySince})
 */
public record WorkloadActivity(
    boolean shellBusy,
    boolean executionRunning,
    Optional<Instant> busySince,
    Optional<Instant> approvalPendingUntil) {

  public WorkloadActivity {
    Objects.requireNonNull(busySince, "busySince");
    Objects.requireNonNull(approvalPendingUntil, "approvalPendingUntil");
  }

  /** No tool call waits for approval. */
  public WorkloadActivity(
      boolean shellBusy, boolean executionRunning, Optional<Instant> busySince) {
    this(shellBusy, executionRunning, busySince, Optional.empty());
  }

  /**
   * Whether the runtime is busy at {@code now}: a shell job, an execution, or a tool call waiting
   * for a decision (the agent's turn is held meanwhile), so that {@code busySince} bounds each.
   */
  public boolean busyAt(Instant now) {
    return shellBusy || executionRunning || approvalPendingUntil.filter(now::isBefore).isPresent();
  }

  public static WorkloadActivity quiet() {
    return new WorkloadActivity(false, false, Optional.empty());
  }

  /** This activity with a tool call waiting for approval until {@code until} at the latest. */
  public WorkloadActivity withApprovalPending(Optional<Instant> until) {
    return new WorkloadActivity(shellBusy, executionRunning, busySince, until);
  }
}
