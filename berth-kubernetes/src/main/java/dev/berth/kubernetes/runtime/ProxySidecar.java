package dev.berth.kubernetes.runtime;

import dev.berth.core.runtime.RuntimeSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@value #CONTAINER} container of an agent session's pod: {@code berth proxy}, the session's
 * credential proxy, listening on the pod's loopback ({@value #LISTEN}) where the agent container's
 * CLI reaches it. It is the only container given the provider's token ({@value #TOKEN_VARIABLE},
 * from the operator's Secret through a secretKeyRef the kubelet resolves: the control plane never
 * holds the token).
 *
 * <p>It runs as its own user (uid {@value #USER}, not the agent container's 1000), with a read-only
 * root filesystem, every capability dropped, no privilege escalation and the runtime's default
 * seccomp profile; a {@code /tmp} of its own is its only writable path. Containers of one pod do
 * not share their processes or filesystems (no {@code shareProcessNamespace}), so the agent
 * container's CLI can read neither its environment nor its memory. They do share the pod's network:
 * the CLI reaches the proxy, and could open a connection to the provider itself, but it holds no
 * token to use there.
 *
 * <p>When the session's tool calls are gated ({@link PodAgent.Gate}), it is also the only container
 * given the session's gateway key ({@value #GATEWAY_KEY_VARIABLE}, from the runtime's own Secret,
 * key {@value RuntimePods#GATEWAY_KEY}): the agent container's CLI could otherwise decide its own
 * approvals. The policy, the gateway's address and the timeout are plain values.
 *
 * <p>Its readiness probe runs in the container (a kubelet's HTTP probe would reach the pod's IP,
 * where the proxy does not listen): Node.js, which the image has for the CLIs, asks {@code GET
 * /healthz} on the loopback and is ready only when the proxy answers for this session.
 */
final class ProxySidecar {
  static final String CONTAINER = "proxy";
  static final String LISTEN = "127.0.0.1:8091";
  static final String URL = "http://" + LISTEN;
  static final String TOKEN_VARIABLE = "BERTH_PROXY_TOKEN";
  static final String GATEWAY_KEY_VARIABLE = "BERTH_PROXY_GATEWAY_KEY";
  static final long USER = 65532;

  private ProxySidecar() {}

  static Container container(RuntimeSpec spec, PodTemplate template, PodAgent agent) {
    String session = spec.labels().session().value();
    return new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(template.image())
        .withCommand(template.command())
        .withArgs("proxy", "--session", session, "--listen", LISTEN)
        .withEnv(environment(spec, agent))
        .withNewReadinessProbe()
        .withNewExec()
        .withCommand("node", "-e", probe(session))
        .endExec()
        .withPeriodSeconds(2)
        .withTimeoutSeconds(2)
        .endReadinessProbe()
        .withNewResources()
        .addToRequests("cpu", new Quantity("50m"))
        .addToRequests("memory", new Quantity("96Mi"))
        .addToLimits("cpu", new Quantity("500m"))
        .addToLimits("memory", new Quantity("192Mi"))
        .endResources()
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(USER)
        .withRunAsGroup(USER)
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(true)
        .withPrivileged(false)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .addNewVolumeMount()
        .withName("proxy-tmp")
        .withMountPath("/tmp")
        .endVolumeMount()
        .build();
  }

  /**
   * The provider and the gate as {@code berth proxy} reads them in a pod: {@code BERTH_PROXY_*}.
   */
  static List<EnvVar> environment(RuntimeSpec spec, PodAgent agent) {
    List<EnvVar> env = environment(agent.provider());
    agent
        .gate()
        .ifPresent(
            gate -> {
              env.add(plain("BERTH_PROXY_APPROVAL_POLICY", gate.policy()));
              env.add(plain("BERTH_PROXY_GATEWAY_URL", gate.gateway()));
              env.add(
                  plain(
                      "BERTH_PROXY_APPROVAL_TIMEOUT_SECONDS",
                      Long.toString(gate.timeoutSeconds())));
              env.add(
                  fromSecret(
                      GATEWAY_KEY_VARIABLE,
                      RuntimePods.secretName(spec.runtime().name()),
                      RuntimePods.GATEWAY_KEY));
            });
    return env;
  }

  /** The provider as {@code berth proxy} reads it in a pod: {@code BERTH_PROXY_*}. */
  static List<EnvVar> environment(PodAgent.Provider provider) {
    List<EnvVar> env = new ArrayList<>();
    env.add(plain("BERTH_PROXY_BASE_URL", provider.baseUrl()));
    env.add(plain("BERTH_PROXY_API", provider.api()));
    provider.authHeader().ifPresent(h -> env.add(plain("BERTH_PROXY_AUTH_HEADER", h)));
    provider.caFile().ifPresent(ca -> env.add(plain("BERTH_PROXY_CA_FILE", ca)));
    env.add(fromSecret(TOKEN_VARIABLE, provider.token().name(), provider.token().key()));
    // A small heap for a relay (bin/berth adds BERTH_JAVA_OPTS after its defaults).
    env.add(
        plain(
            "BERTH_JAVA_OPTS",
            "-Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData"));
    return env;
  }

  /** Exits 0 only when the proxy's {@code /healthz} names {@code session}. */
  static String probe(String session) {
    return "fetch('"
        + URL
        + "/healthz').then(r=>r.json()).then(j=>process.exit(j.session==='"
        + session
        + "'?0:1),()=>process.exit(1))";
  }

  private static EnvVar fromSecret(String name, String secret, String key) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewSecretKeyRef()
        .withName(secret)
        .withKey(key)
        .withOptional(false)
        .endSecretKeyRef()
        .endValueFrom()
        .build();
  }

  private static EnvVar plain(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }
}
