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
 * <p>Its readiness probe runs in the container (a kubelet's HTTP probe would reach the pod's IP,
 * where the proxy does not listen): Node.js, which the image has for the CLIs, asks {@code GET
 * /healthz} on the loopback and is ready only when the proxy answers for this session.
 */
final class ProxySidecar {
  static final String CONTAINER = "proxy";
  static final String LISTEN = "127.0.0.1:8091";
  static final String URL = "http://" + LISTEN;
  static final String TOKEN_VARIABLE = "BERTH_PROXY_TOKEN";
  static final long USER = 65532;

  private ProxySidecar() {}

  static Container container(RuntimeSpec spec, PodTemplate template, PodAgent agent) {
    String session = spec.labels().session().value();
    return new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(template.image())
        .withCommand(template.command())
        .withArgs("proxy", "--session", session, "--listen", LISTEN)
        .withEnv(environment(agent.provider()))
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

  /** The provider as {@code berth proxy} reads it in a pod: {@code BERTH_PROXY_*}. */
  static List<EnvVar> environment(PodAgent.Provider provider) {
    List<EnvVar> env = new ArrayList<>();
    env.add(plain("BERTH_PROXY_BASE_URL", provider.baseUrl()));
    env.add(plain("BERTH_PROXY_API", provider.api()));
    provider.authHeader().ifPresent(h -> env.add(plain("BERTH_PROXY_AUTH_HEADER", h)));
    provider.caFile().ifPresent(ca -> env.add(plain("BERTH_PROXY_CA_FILE", ca)));
    env.add(
        new EnvVarBuilder()
            .withName(TOKEN_VARIABLE)
            .withNewValueFrom()
            .withNewSecretKeyRef()
            .withName(provider.token().name())
            .withKey(provider.token().key())
            .withOptional(false)
            .endSecretKeyRef()
            .endValueFrom()
            .build());
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

  private static EnvVar plain(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }
}
