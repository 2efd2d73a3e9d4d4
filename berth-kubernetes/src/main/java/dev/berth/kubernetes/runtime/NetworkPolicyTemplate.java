package dev.berth.kubernetes.runtime;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The NetworkPolicy each session pod gets, when the cluster enforces them: ingress only from the
 * control plane's pods, to the agent's port; egress as the session's network access allows (none at
 * all, or anywhere outside {@code egressExcept}, plus DNS).
 *
 * @param controlPlanePods the labels of the control plane's pods, e.g. {@code
 *     app.kubernetes.io/name=berth}
 * @param controlPlaneNamespace the control plane's namespace when it is not the sessions' one
 * @param egressExcept CIDRs a session with egress may still not reach: the node's metadata service
 *     ({@code 169.254.169.254/32}), the cluster's pod and service ranges
 */
public record NetworkPolicyTemplate(
    Map<String, String> controlPlanePods,
    Optional<String> controlPlaneNamespace,
    List<String> egressExcept) {
  public NetworkPolicyTemplate {
    controlPlanePods = Map.copyOf(controlPlanePods);
    Objects.requireNonNull(controlPlaneNamespace, "controlPlaneNamespace");
    egressExcept = List.copyOf(egressExcept);
    if (controlPlanePods.isEmpty()) {
      throw new IllegalArgumentException(
          "controlPlanePods is empty, which would let every pod of the namespace reach the"
              + " agents; give the control plane pods' labels, e.g. app.kubernetes.io/name=berth");
    }
  }
}
