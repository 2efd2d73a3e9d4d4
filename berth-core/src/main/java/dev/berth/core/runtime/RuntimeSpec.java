package dev.berth.core.runtime;

import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.WorkloadType;
import java.util.Objects;

/**
 * What to create: the planned runtime, its workload and its ownership labels.
 *
 * @param awaitRestore the runtime is created to receive an archive (a resume): its workload starts
 *     only once the archive was restored, never with an empty workspace
 */
public record RuntimeSpec(
    RuntimeRef runtime, WorkloadType workload, OwnershipLabels labels, boolean awaitRestore) {
  public RuntimeSpec {
    Objects.requireNonNull(runtime, "runtime");
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(labels, "labels");
    if (labels.incarnation() != runtime.incarnation()) {
      throw new IllegalArgumentException(
          "runtime "
              + runtime.name()
              + " is incarnation "
              + runtime.incarnation()
              + " but its labels say "
              + labels.incarnation());
    }
  }

  /** A runtime that starts its workload at once, in a fresh workspace. */
  public RuntimeSpec(RuntimeRef runtime, WorkloadType workload, OwnershipLabels labels) {
    this(runtime, workload, labels, false);
  }
}
