package dev.berth.agent.node;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.RuntimeRequest;
import dev.berth.agent.host.SessionHost;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import java.time.Clock;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code berth agent}: the session host in a pod, hosting exactly one session whose runtime it
 * creates at start. The pod is the runtime, so the pod's name, incarnation and labels are the
 * runtime's; the token comes from the environment the control plane set on the pod.
 *
 * <p>An agent session's pod runs its credential proxy as a sidecar container: this host starts none
 * and never holds the provider's token (see {@link PodWorkload}). It is ready ({@code /healthz},
 * the container's readiness probe) only once that sidecar answers for this session, so a pod is
 * Ready only with both its containers up and bound to the session.
 */
public final class SessionAgent implements AutoCloseable {

  private final SessionHost host;
  private final AgentHttpServer server;
  private final @Nullable SidecarProxyCheck sidecar;

  private SessionAgent(
      SessionHost host, AgentHttpServer server, @Nullable SidecarProxyCheck sidecar) {
    this.host = host;
    this.server = server;
    this.sidecar = sidecar;
  }

  /**
   * Starts the agent and the session's runtime.
   *
   * @param installation the control plane installation that owns the session
   */
  public static SessionAgent start(
      SessionId session,
      long incarnation,
      String installation,
      HostConfig config,
      AgentHttpServer.Settings settings) {
    return start(session, incarnation, installation, false, config, settings);
  }

  /**
   * Starts the agent and the session's shell runtime.
   *
   * @param installation the control plane installation that owns the session
   * @param awaitRestore the runtime is a resume's: it starts nothing and waits for the archive the
   *     control plane sends (a pod restarted after the restore finds its runtime as it was)
   */
  public static SessionAgent start(
      SessionId session,
      long incarnation,
      String installation,
      boolean awaitRestore,
      HostConfig config,
      AgentHttpServer.Settings settings) {
    return start(
        session, incarnation, installation, awaitRestore, Optional.empty(), config, settings);
  }

  /**
   * Starts the agent and the session's runtime: a shell, or the agent session {@code workload}
   * names, whose credential proxy is the pod's sidecar.
   */
  public static SessionAgent start(
      SessionId session,
      long incarnation,
      String installation,
      boolean awaitRestore,
      Optional<PodWorkload> workload,
      HostConfig config,
      AgentHttpServer.Settings settings) {
    Clock clock = Clock.systemUTC();
    SessionHost host =
        workload
            .map(w -> SessionHost.openForPod(session, config, clock, w.proxy()))
            .orElseGet(() -> SessionHost.openFor(session, config, clock));
    SidecarProxyCheck sidecar =
        workload.map(w -> new SidecarProxyCheck(w.proxy(), session)).orElse(null);
    try {
      OwnershipLabels labels = new OwnershipLabels(installation, session, incarnation);
      host.provision(
          session,
          new RuntimeRequest(
              RuntimeRef.nameFor(session, incarnation),
              incarnation,
              workload.map(PodWorkload::type).orElse("shell"),
              labels.asMap(),
              awaitRestore,
              null,
              workload.map(PodWorkload::launch).orElse(null)),
          Optional.empty());
      AgentHttpServer.Readiness readiness =
          sidecar == null
              ? AgentHttpServer.Readiness.ALWAYS
              : () -> sidecar.ready() ? Optional.empty() : Optional.of(sidecar.state());
      return new SessionAgent(
          host, AgentHttpServer.start(host, config.token(), settings, readiness), sidecar);
    } catch (RuntimeException e) {
      if (sidecar != null) {
        sidecar.close();
      }
      host.close();
      throw e;
    }
  }

  public int port() {
    return server.port();
  }

  public SessionHost host() {
    return host;
  }

  /** Whether the pod's credential proxy sidecar answered for this session; true without one. */
  public boolean proxyReady() {
    return sidecar == null || sidecar.ready();
  }

  @Override
  public void close() {
    server.close();
    if (sidecar != null) {
      sidecar.close();
    }
    host.close();
  }
}
