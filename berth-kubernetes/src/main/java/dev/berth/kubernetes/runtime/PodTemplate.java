package dev.berth.kubernetes.runtime;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What every session pod of an installation shares: where it runs, what it runs, and what it may
 * use. The session-specific parts (name, labels, the agent's arguments, its token) come from the
 * runtime spec.
 *
 * @param namespace the namespace every session pod and its token Secret live in
 * @param image the image holding the {@code berth} CLI
 * @param command the image's {@code berth} executable, e.g. {@code [berth]}; the pod runs it with
 *     {@code agent --session ...}
 * @param agentPort the port the agent listens on inside the pod
 * @param resources the agent container's requests and limits (shell and workload included)
 * @param serviceAccount the pod's service account; empty for the namespace's default. Its token is
 *     never mounted either way: a session needs no access to the API server
 * @param stateSizeLimit the size limit of the emptyDir state volume at {@code /var/lib/berth}, a
 *     Kubernetes quantity such as {@code 10Gi}; empty for none (the node's ephemeral storage bounds
 *     it)
 */
public record PodTemplate(
    String namespace,
    String image,
    List<String> command,
    int agentPort,
    Resources resources,
    Optional<String> serviceAccount,
    Optional<String> stateSizeLimit) {

  /** The state directory inside the pod, where the agent keeps the session's workspace. */
  public static final String STATE_DIR = "/var/lib/berth";

  public PodTemplate {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(image, "image");
    command = List.copyOf(command);
    Objects.requireNonNull(resources, "resources");
    Objects.requireNonNull(serviceAccount, "serviceAccount");
    Objects.requireNonNull(stateSizeLimit, "stateSizeLimit");
    if (namespace.isBlank() || image.isBlank()) {
      throw new IllegalArgumentException(
          "a pod template needs a namespace and an image, was namespace \""
              + namespace
              + "\" and image \""
              + image
              + "\"");
    }
    if (command.isEmpty()) {
      throw new IllegalArgumentException(
          "a pod template needs the image's berth command (e.g. [berth]), was empty");
    }
    if (agentPort < 1 || agentPort > 65535) {
      throw new IllegalArgumentException("agentPort must be in 1..65535, was " + agentPort);
    }
  }

  /**
   * The agent container's resources, as Kubernetes quantities (e.g. {@code 500m}, {@code 1Gi}).
   * Limits are required: a session without a memory limit could take its node down, and is then
   * killed as {@code OOMKilled} by nobody.
   */
  public record Resources(
      String cpuRequest, String memoryRequest, String cpuLimit, String memoryLimit) {
    public Resources {
      Objects.requireNonNull(cpuRequest, "cpuRequest");
      Objects.requireNonNull(memoryRequest, "memoryRequest");
      Objects.requireNonNull(cpuLimit, "cpuLimit");
      Objects.requireNonNull(memoryLimit, "memoryLimit");
    }

    /** Half a CPU and 512 MiB guaranteed, up to two CPUs and 2 GiB. */
    public static Resources defaults() {
      return new Resources("500m", "512Mi", "2", "2Gi");
    }
  }
}
