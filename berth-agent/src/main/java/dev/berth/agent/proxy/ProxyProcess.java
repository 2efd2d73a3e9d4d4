package dev.berth.agent.proxy;

import dev.berth.core.session.SessionId;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A session's credential proxy as the node runs it: a {@code berth proxy} child ({@link ProxyMain})
 * on a Unix socket, started from this JVM's own {@code java.home} and class path with a small heap.
 *
 * <p>The launch, token included, goes as one line on the child's stdin and nowhere else: not in its
 * command line or environment (which other processes of the node's user can read in {@code /proc}),
 * not in a file. Stdin then stays open; closing it ({@link #close}, or the node dying) stops the
 * proxy, so no proxy outlives its node.
 *
 * <p>Ready means bound <em>for this session</em>: the child printed its ready line, and {@code GET
 * /healthz} through the socket names this session. Its stderr (its log) goes to a file beside the
 * socket, outside the runtime's {@code state/}, so that no archive holds it.
 *
 * <p>A child that exits while its session runs is logged at once, and {@link #failure()} tells the
 * node's prompt path to refuse with the reason. It is not restarted: the node does not keep the
 * token once it is written, so only a new provision (a resume) can start another.
 */
public final class ProxyProcess implements AutoCloseable {

  /**
   * How long the child has to print its ready line: a JVM's start, which took up to 3.3 s on a
   * loaded 2-core machine; the margin is for a node starting many sessions at once.
   */
  public static final Duration READY_WAIT = Duration.ofSeconds(30);

  /**
   * A small JVM: one proxy's heap is a few MiB, so it starts at 4 MiB (resident memory went from 97
   * to 82 MB) and may grow to 64; C1 only and no CDS writes keep startup short.
   */
  static final List<String> JVM_OPTIONS =
      List.of(
          "-Xms4m",
          "-Xmx64m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-XX:-UsePerfData",
          "-Xshare:auto");

  private static final Duration STOP_GRACE = Duration.ofSeconds(3);
  private static final Logger LOG = LoggerFactory.getLogger(ProxyProcess.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SessionId session;
  private final Process process;
  private final OutputStream stdin;
  private final Path socket;
  private final Path log;
  private volatile boolean closing;

  private ProxyProcess(
      SessionId session, Process process, OutputStream stdin, Path socket, Path log) {
    this.session = session;
    this.process = process;
    this.stdin = stdin;
    this.socket = socket;
    this.log = log;
  }

  /** Where a proxy on {@code socket} logs: beside it. */
  public static Path logFile(Path socket) {
    return socket.resolveSibling(socket.getFileName() + ".log");
  }

  /**
   * Starts {@code launch}'s proxy and waits until it is ready for its session.
   *
   * @throws ProxyLaunch.Invalid when the launch cannot run (checked here first, in the node)
   * @throws IllegalStateException when the child does not become ready, with its last log lines
   */
  public static ProxyProcess start(ProxyLaunch launch) {
    ProxyLaunch.Checked checked = launch.check(ProxyLaunch.Source.STDIN);
    if (!(checked.listen() instanceof CredentialProxy.Listen.Unix unix)) {
      throw new IllegalArgumentException(
          "a node's proxy listens on a Unix socket, was " + checked.listen());
    }
    Path log = logFile(unix.path());
    Process process = spawn(log);
    OutputStream stdin = process.getOutputStream();
    ProxyProcess proxy = new ProxyProcess(checked.session(), process, stdin, unix.path(), log);
    try {
      stdin.write((launch.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
      proxy.awaitReady();
      proxy.checkHealth();
    } catch (IOException | RuntimeException e) {
      proxy.close();
      throw new IllegalStateException(
          "the credential proxy of session "
              + checked.session().value()
              + " did not start: "
              + e.getMessage()
              + proxy.logTail(),
          e);
    }
    var unused = process.onExit().thenRun(proxy::exited);
    LOG.info(
        "credential proxy of session {} runs as process {} on {}",
        checked.session().value(),
        process.pid(),
        unix.path());
    return proxy;
  }

  private static Process spawn(Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ProxyMain.class.getName());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    // Nothing of the node's own settings for a child JVM: the proxy needs none.
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().remove("JDK_JAVA_OPTIONS");
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the credential proxy process: " + e, e);
    }
  }

  /** Waits for the ready line; then keeps reading stdout, so that the child never blocks on it. */
  private void awaitReady() {
    CompletableFuture<String> ready = new CompletableFuture<>();
    String expected = ProxyMain.READY + session.value();
    Thread.ofVirtual()
        .name("berth-proxy-stdout-" + session.value())
        .start(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  if (line.equals(expected)) {
                    ready.complete(line);
                  }
                }
              } catch (IOException e) {
                ready.completeExceptionally(e);
              }
              ready.completeExceptionally(
                  new IllegalStateException("the process ended before it was ready"));
            });
    try {
      ready.get(READY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("no ready line within " + READY_WAIT.toSeconds() + " s", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IllegalStateException(cause.getMessage() + exitCode(), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for it", e);
    }
  }

  /** {@code GET /healthz} through the socket must name this session. */
  private void checkHealth() {
    String answer = healthz(socket);
    int body = answer.indexOf("\r\n\r\n");
    JsonNode health;
    try {
      health = JSON.readTree(body < 0 ? "" : answer.substring(body + 4));
    } catch (RuntimeException e) {
      throw new IllegalStateException("its /healthz answered no JSON: " + firstLine(answer), e);
    }
    String named = health.path("session").asString("");
    if (!answer.startsWith("HTTP/1.1 200") || !named.equals(session.value())) {
      throw new IllegalStateException(
          "its /healthz on "
              + socket
              + " does not name session "
              + session.value()
              + " (answered "
              + firstLine(answer)
              + ", session \""
              + named
              + "\")");
    }
  }

  /** One {@code GET /healthz} over the Unix socket at {@code socket}: the raw answer. */
  static String healthz(Path socket) {
    try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      channel.write(
          ByteBuffer.wrap(
              "GET /healthz HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII)));
      ByteBuffer buffer = ByteBuffer.allocate(8192);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // Until the proxy closes the connection; a health answer is a few dozen bytes.
      }
      return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("its socket " + socket + " did not answer /healthz: " + e, e);
    }
  }

  private void exited() {
    if (closing) {
      return;
    }
    LOG.error(
        "the credential proxy of session {} (process {}) exited with code {} while its session"
            + " runs; its prompts fail until the session is resumed. Its log: {}",
        session.value(),
        process.pid(),
        process.exitValue(),
        log);
  }

  /** Why the proxy no longer serves its session, when it exited without being closed. */
  public Optional<String> failure() {
    if (closing || process.isAlive()) {
      return Optional.empty();
    }
    return Optional.of(
        "the credential proxy of session "
            + session.value()
            + " exited with code "
            + process.exitValue()
            + "; suspend and resume the session to start a new one (its log: "
            + log
            + ")");
  }

  /** The child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Closes stdin (the proxy stops); destroys the child if it has not ended shortly after. */
  @Override
  public void close() {
    closing = true;
    try {
      stdin.close();
    } catch (IOException e) {
      // Already closed, or the child is gone: either way it stops.
    }
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroy();
        if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private String exitCode() {
    return process.isAlive() ? "" : " (exit code " + process.exitValue() + ")";
  }

  /** The last lines of the child's log, for an error message: it never holds the token. */
  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      List<String> tail = lines.subList(Math.max(0, lines.size() - 5), lines.size());
      return tail.isEmpty() ? "" : "; its log (" + log + ") ends: " + String.join(" | ", tail);
    } catch (IOException | UncheckedIOException e) {
      return "; its log: " + log;
    }
  }

  private static String firstLine(String text) {
    int end = text.indexOf('\r');
    return end < 0 ? text : text.substring(0, end);
  }
}
