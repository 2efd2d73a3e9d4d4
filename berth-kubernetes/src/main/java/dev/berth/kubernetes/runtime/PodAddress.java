package dev.berth.kubernetes.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a pod's agent answers, read from the pod as the informer last saw it. In a cluster that is
 * the pod's IP and the template's agent port ({@link #podIp}); a cluster that reaches its pods
 * otherwise (through a proxy, say) gives its own.
 */
@FunctionalInterface
public interface PodAddress {

  /** The agent's address; empty while the pod has none (not scheduled, or no IP yet). */
  Optional<Address> of(Pod pod);

  /** The pod's IP from its status, and the same {@code port} for every pod. */
  static PodAddress podIp(int port) {
    return pod ->
        Optional.ofNullable(pod.getStatus())
            .map(status -> status.getPodIP())
            .filter(ip -> !ip.isBlank())
            .map(ip -> new Address(ip, port));
  }

  /** A host (an IPv4 or IPv6 literal, or a name) and a port. */
  record Address(String host, int port) {
    public Address {
      Objects.requireNonNull(host, "host");
    }

    /** {@code http://host:port}, the IPv6 literal bracketed. */
    public String httpBase() {
      String literal = host.contains(":") ? "[" + host + "]" : host;
      return "http://" + literal + ":" + port;
    }
  }
}
