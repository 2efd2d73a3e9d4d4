package dev.berth.agent.http;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.SessionHost;
import java.time.Clock;
import java.time.Duration;

/**
 * A session host serving the agent protocol on a free loopback port, as the HTTP tests use it:
 * short keepalives and UTF-8 hold-back so streams show their behaviour quickly.
 */
record RunningHost(SessionHost host, AgentHttpServer server, AgentApi api)
    implements AutoCloseable {

  static RunningHost start(HostConfig config) {
    return start(config, AgentHttpServer.Settings.DEFAULT_STALL_TIMEOUT);
  }

  /** As {@link #start(HostConfig)}, dropping clients that take no output for {@code stall}. */
  static RunningHost start(HostConfig config, Duration stall) {
    SessionHost host = SessionHost.open(config, Clock.systemUTC());
    AgentHttpServer server =
        AgentHttpServer.start(
            host,
            config.token(),
            new AgentHttpServer.Settings(
                "127.0.0.1", 0, Duration.ofMillis(300), Duration.ofMillis(50), stall));
    return new RunningHost(host, server, new AgentApi(server.port(), config.token()));
  }

  @Override
  public void close() {
    server.close();
    host.close();
  }
}
