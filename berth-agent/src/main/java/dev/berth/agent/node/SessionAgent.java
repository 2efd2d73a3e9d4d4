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

/**
 * {@code berth agent}: the session host in a pod, hosting exactly one session whose runtime it
 * creates at start. The pod is the runtime, so the pod's name, incarnation and labels are the
 * runtime's; the token comes from the environment the control plane set on the pod.
 */
public final class SessionAgent implements AutoCloseable {

  private final SessionHost host;
  private final AgentHttpServer server;

  private SessionAgent(SessionHost host, AgentHttpServer server) {
    this.host = host;
    this.server = server;
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
   * Starts the agent and the session's runtime.
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
    SessionHost host = SessionHost.openFor(session, config, Clock.systemUTC());
    try {
      OwnershipLabels labels = new OwnershipLabels(installation, session, incarnation);
      host.provision(
          session,
          new RuntimeRequest(
              RuntimeRef.nameFor(session, incarnation),
              incarnation,
              "shell",
              labels.asMap(),
              awaitRestore),
          Optional.empty());
      return new SessionAgent(host, AgentHttpServer.start(host, config.token(), settings));
    } catch (RuntimeException e) {
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

  @Override
  public void close() {
    server.close();
    host.close();
  }
}
