package dev.berth.server.runtime;

import java.io.IOException;
import java.time.Duration;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.routing.RoutingSupport;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.HttpClientResponseHandler;
import org.apache.hc.core5.util.TimeValue;
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
 * <p>Why Apache's minimal client rather than its full one: the full one runs every exchange through
 * an execution chain (redirects, retries, cookies, authentication, a URI rebuilt from its parts)
 * that the agent protocol never uses; that chain was a quarter of a write's CPU in the control
 * plane. The minimal one keeps what matters here: the pool, its check of a connection that sat idle
 * (the agent may have closed it), and keep-alive.
 *
 * <p>Retries are off: a command is retried by the reconciler under its intent version, never twice
 * by the transport behind its back. No proxy settings are read: the agent is always dialled
 * directly.
 */
final class BlockingAgentHttp implements AutoCloseable {

  /**
   * Connections kept per agent: one per exchange in flight. The local node is one agent for every
   * session, so this bounds the concurrent exchanges with it; one beyond waits for a connection.
   */
  static final int CONNECTIONS_PER_AGENT = 64;

  /** A kept connection idle for longer is checked before it is used again. */
  private static final TimeValue CHECK_AFTER_IDLE = TimeValue.ofSeconds(1);

  /**
   * A connection is used for at most this long, then closed. The minimal client keeps connections
   * for ever; the agent's server closes one idle for 30 s, and a request sent on it just then would
   * fail (nothing is retried). Younger than that, no kept connection has been idle so long.
   */
  private static final TimeValue TIME_TO_LIVE = TimeValue.ofSeconds(20);

  private final CloseableHttpClient client;
  private final RequestConfig config;
  private final AgentCallTimings timings;

  /**
   * A client whose connect takes at most five seconds and whose reads wait at most {@code timeout}
   * for the next bytes (and for a free connection).
   */
  BlockingAgentHttp(Duration timeout, AgentCallTimings timings) {
    this.timings = timings;
    Timeout wait = Timeout.of(timeout);
    this.client =
        HttpClients.createMinimal(
            PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(CONNECTIONS_PER_AGENT)
                .setMaxConnTotal(4 * CONNECTIONS_PER_AGENT)
                .setDefaultConnectionConfig(
                    ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.ofSeconds(5))
                        .setSocketTimeout(wait)
                        .setValidateAfterInactivity(CHECK_AFTER_IDLE)
                        .setTimeToLive(TIME_TO_LIVE)
                        .build())
                .build());
    // No response timeout here: the connection's socket timeout is the same bound, set once when
    // it is opened rather than again at every exchange.
    this.config = RequestConfig.custom().setConnectionRequestTimeout(wait).build();
  }

  /** Sends {@code request} and hands its response to {@code handler}, which reads the body. */
  <T> T execute(HttpUriRequestBase request, HttpClientResponseHandler<? extends T> handler)
      throws IOException {
    request.setConfig(config);
    long start = System.nanoTime();
    int[] status = {0};
    try {
      return client.execute(
          target(request),
          request,
          response -> {
            status[0] = response.getCode();
            return handler.handleResponse(response);
          });
    } finally {
      took(request, status[0], start);
    }
  }

  /**
   * Sends {@code request} and returns its response with the body unread; closing the response gives
   * the connection back when the body was read to its end and drops it otherwise.
   */
  ClassicHttpResponse open(HttpUriRequestBase request) throws IOException {
    request.setConfig(config);
    long start = System.nanoTime();
    int status = 0;
    try {
      ClassicHttpResponse response = client.executeOpen(target(request), request, null);
      status = response.getCode();
      return response;
    } finally {
      took(request, status, start);
    }
  }

  /** Tells the timings of an exchange; {@code status} 0 when no answer came. */
  private void took(HttpUriRequestBase request, int status, long start) {
    String route;
    try {
      route = AgentCallTimings.route(request.getUri());
    } catch (java.net.URISyntaxException e) {
      route = "unknown";
    }
    timings.took(
        request.getMethod(),
        route,
        status == 0 ? "error" : AgentCallTimings.outcome(status),
        System.nanoTime() - start);
  }

  /** The minimal client takes its target apart from the request (the full one worked it out). */
  private static HttpHost target(HttpUriRequestBase request) throws IOException {
    try {
      HttpHost host = RoutingSupport.determineHost(request);
      if (host == null) {
        throw new IOException("no host to send " + request + " to: its URI names none");
      }
      return host;
    } catch (HttpException e) {
      throw new IOException("no host to send " + request + " to: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws IOException {
    client.close();
  }
}
