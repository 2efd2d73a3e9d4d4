package dev.berth.core.runtime;

import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.WorkloadType;
import java.util.Objects;

/** What to create: the planned runtime, its workload and its ownership labels. */
public record RuntimeSpec(RuntimeRef runtime, WorkloadType workload, OwnershipLabels labels) {
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
}
