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
 */
public record WorkloadActivity(
    boolean shellBusy, boolean executionRunning, Optional<Instant> busySince) {

  public WorkloadActivity {
    Objects.requireNonNull(busySince, "busySince");
  }

  public static WorkloadActivity quiet() {
    return new WorkloadActivity(false, false, Optional.empty());
  }
}
