package dev.berth.core.runtime;

import dev.berth.core.session.AgentModel;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.WorkloadType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What to create: the planned runtime, its workload and its ownership labels.
 *
 * @param model the agent session's model; empty for a shell
 * @param plugins the agent session's marketplace plugins; none for a shell
 * @param awaitRestore the runtime is created to receive an archive (a resume): its workload starts
 *     only once the archive was restored, never with an empty workspace
 */
public record RuntimeSpec(
    RuntimeRef runtime,
    WorkloadType workload,
    Optional<AgentModel> model,
    List<PluginName> plugins,
    OwnershipLabels labels,
    boolean awaitRestore) {
  public RuntimeSpec {
    Objects.requireNonNull(runtime, "runtime");
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(model, "model");
    plugins = List.copyOf(plugins);
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
    this(runtime, workload, Optional.empty(), List.of(), labels, false);
  }

  /** A shell's runtime (no model). */
  public RuntimeSpec(
      RuntimeRef runtime, WorkloadType workload, OwnershipLabels labels, boolean awaitRestore) {
    this(runtime, workload, Optional.empty(), List.of(), labels, awaitRestore);
  }
}
