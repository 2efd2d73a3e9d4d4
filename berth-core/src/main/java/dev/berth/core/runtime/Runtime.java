package dev.berth.core.runtime;

import dev.berth.core.session.RuntimeRef;
import java.util.List;

/**
 * Creates, observes and removes the isolated runtimes that host sessions: a process tree under the
 * local node agent, or a Kubernetes pod. Implementations are thread-safe. Every method is
 * idempotent, because a restarted control plane repeats whatever it may have done before.
 */
// The port's name in the domain's vocabulary; no Berth class uses java.lang.Runtime.
@SuppressWarnings("JavaLangClash")
public interface Runtime {

  /** The adapter's kind, recorded in {@link RuntimeRef#kind()}, e.g. {@code local}. */
  String kind();

  /**
   * Creates the runtime named by {@code spec}, or finds it when it already exists (creation is
   * idempotent by name). Returns without waiting for readiness; {@link #observe} tells.
   */
  void provision(RuntimeSpec spec);

  /** What the runtime looks like now. Never throws for lost contact: that is {@code Unknown}. */
  RuntimeObservation observe(RuntimeRef runtime);

  /** Removes the runtime; a runtime that does not exist counts as removed. */
  RemovalResult remove(RuntimeRef runtime);

  /** Every runtime object of this installation, found by its ownership labels. */
  List<RuntimeListing> list();

  /**
   * Proves that the runtime can be asked now (the local node answers; the pod watch is up), and
   * cheaply: readiness asks it every few seconds. Creates nothing.
   *
   * @throws RuntimeException naming what cannot be reached
   */
  void checkReachable();
}
