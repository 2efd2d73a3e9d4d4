package dev.berth.server.runtime;

import java.time.Duration;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.util.Timeout;

/**
 * The HTTP client for the agent exchanges that end soon (commands, input, output reads): blocking
 * I/O on the caller's (virtual) thread, one write and one read, over a bounded pool of kept
 * connections.
 *
 * <p>Why not the JDK's {@code HttpClient}: it hands every exchange between its selector thread and
 * an executor. On a two-core machine that cost a write about half a millisecond at the median and
 * several at the 90th percentile, and a third of the control plane's CPU under twenty clients doing
 * write+read (bench/TerminalLatencyBench). Live streams (SSE, attach) stay on the JDK client: they
 * last as long as their viewer, and a bounded pool would cap how many can be open.
 *
 * <p>Retries are off: a command is retried by the reconciler under its intent version, never twice
 * by the transport behind its back. No proxy settings are read: the agent is always dialled
 * directly.
 */
final class BlockingAgentHttp {

  /**
   * Connections kept per agent: one per exchange in flight. The local node is one agent for every
   * session, so this bounds the concurrent exchanges with it; one beyond waits for a connection.
   */
  static final int CONNECTIONS_PER_AGENT = 64;

  private BlockingAgentHttp() {}

  /**
   * A client whose connect takes at most five seconds and whose reads wait at most {@code timeout}
   * for the next bytes (and for a free connection).
   */
  static CloseableHttpClient create(Duration timeout) {
    Timeout wait = Timeout.of(timeout);
    return HttpClients.custom()
        .setConnectionManager(
            PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(CONNECTIONS_PER_AGENT)
                .setMaxConnTotal(4 * CONNECTIONS_PER_AGENT)
                .setDefaultConnectionConfig(
                    ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.ofSeconds(5))
                        .setSocketTimeout(wait)
                        .build())
                .build())
        .setDefaultRequestConfig(
            RequestConfig.custom()
                .setConnectionRequestTimeout(wait)
                .setResponseTimeout(wait)
                .build())
        .disableAutomaticRetries()
        .disableRedirectHandling()
        .disableCookieManagement()
        .disableAuthCaching()
        .disableContentCompression()
        .build();
  }
}
