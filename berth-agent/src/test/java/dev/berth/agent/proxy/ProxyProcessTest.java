package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.agentcli.FakeModelProvider;
import dev.berth.core.session.SessionId;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code berth proxy} as a real process: started as the node starts it ({@link ProxyProcess}), or
 * by hand as {@link ProxyMain}, against the fake provider over real HTTPS.
 */
class ProxyProcessTest {

  private static final String TOKEN = "sk-proxy-process-token-0123456789abcdef";

  @TempDir Path dir;
  private FakeModelProvider provider;
  private final SessionId session = SessionId.generate(RandomGenerator.getDefault());
  private final List<Process> started = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    provider = FakeModelProvider.https(Files.createDirectories(dir.resolve("provider")));
    provider.echoes(TOKEN);
  }

  @AfterEach
  void stop() {
    started.forEach(Process::destroyForcibly);
    provider.close();
  }

  @Test
  void theNodesProxyIsReadyForItsSessionAndForwardsThroughItsSocketWithTheToken() throws Exception {
    Path socket = dir.resolve("p.sock");
    try (ProxyProcess proxy = ProxyProcess.start(launch(socket, TOKEN, provider.url()))) {
      assertThat(ProxyProcess.healthz(socket))
          .startsWith("HTTP/1.1 200")
          .endsWith(
              "{\"status\":\"ok\",\"workload\":\"credential-proxy\",\"session\":\""
                  + session.value()
                  + "\"}");

      String answer = post(socket, "/v1/messages", "{\"messages\":[]}");

      assertThat(answer).startsWith("HTTP/1.1 200").doesNotContain(TOKEN);
      assertThat(provider.received().getLast().headers()).containsEntry("x-api-key", TOKEN);
      assertThat(proxy.failure()).isEmpty();
    }
    assertThat(socket).doesNotExist();
  }

  @Test
  void theTokenIsInNeitherTheProxysCommandLineNorItsEnvironment() throws Exception {
    Path socket = dir.resolve("p.sock");
    try (ProxyProcess proxy = ProxyProcess.start(launch(socket, TOKEN, provider.url()))) {
      byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(proxy.pid()), "cmdline"));
      byte[] environ = Files.readAllBytes(Path.of("/proc", Long.toString(proxy.pid()), "environ"));

      assertThat(new String(cmdline, StandardCharsets.UTF_8))
          .contains(ProxyMain.class.getName())
          .contains("-Xmx64m")
          .doesNotContain(TOKEN);
      assertThat(new String(environ, StandardCharsets.UTF_8)).isNotEmpty().doesNotContain(TOKEN);
    }
  }

  @Test
  void theEndOfStdinStopsTheProxyAndRemovesItsSocket() throws Exception {
    Path socket = dir.resolve("p.sock");
    Process proxy = spawn(List.of());
    write(proxy, launch(socket, TOKEN, provider.url()).toJson() + "\n");
    assertThat(readyLine(proxy)).isEqualTo(ProxyMain.READY + session.value());
    assertThat(socket).exists();

    proxy.getOutputStream().close();

    assertThat(proxy.waitFor(10, TimeUnit.SECONDS)).as("exited on stdin EOF").isTrue();
    assertThat(proxy.exitValue()).isZero();
    assertThat(socket).doesNotExist();
  }

  @Test
  void aBadLaunchExitsNonZeroNamingTheFieldTheRuleAndTheValueButNeverTheToken() throws Exception {
    Path socket = dir.resolve("p.sock");
    Map<ProxyLaunch, List<String>> cases =
        Map.of(
            launch(socket, TOKEN, URI.create("http://provider.example")),
            List.of("provider.baseUrl", "https", "http://provider.example"),
            launch(socket, TOKEN + "\r\nInjected: 1", provider.url()),
            List.of("provider.token", "CR or LF"),
            withApi(launch(socket, TOKEN, provider.url()), "gemini"),
            List.of("provider.api", "anthropic or openai", "gemini"));
    for (var bad : cases.entrySet()) {
      Process proxy = spawn(List.of());
      write(proxy, bad.getKey().toJson() + "\n");

      assertThat(proxy.waitFor(10, TimeUnit.SECONDS)).isTrue();
      String stderr = new String(proxy.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(proxy.exitValue()).as(stderr).isEqualTo(ProxyMain.EXIT_INVALID);
      assertThat(stderr).contains(bad.getValue()).doesNotContain(TOKEN);
      assertThat(socket).doesNotExist();
    }
    // The node checks first, with the same message.
    assertThatThrownBy(
            () -> ProxyProcess.start(withApi(launch(socket, TOKEN, provider.url()), "gemini")))
        .isInstanceOf(ProxyLaunch.Invalid.class)
        .hasMessageContaining("provider.api");
  }

  @Test
  void aProxyThatDiesIsReportedAsTheSessionsFailure() throws Exception {
    Path socket = dir.resolve("p.sock");
    try (ProxyProcess proxy = ProxyProcess.start(launch(socket, TOKEN, provider.url()))) {
      ProcessHandle.of(proxy.pid()).orElseThrow().destroyForcibly();
      ProcessHandle.of(proxy.pid()).ifPresent(p -> p.onExit().join());

      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> proxy.failure().isPresent());
      assertThat(proxy.failure().orElseThrow())
          .contains(session.value())
          .contains("exited with code")
          .contains("resume");
    }
  }

  @Test
  void aSidecarReadsItsProviderFromTheEnvironmentAndListensOnItsPort() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Process proxy =
        spawn(
            List.of("--session", session.value(), "--listen", "127.0.0.1:" + port),
            Map.of(
                ProxyLaunch.ENV_BASE_URL,
                provider.url().toString(),
                ProxyLaunch.ENV_API,
                "anthropic",
                ProxyLaunch.ENV_CA_FILE,
                provider.caCertificate().toString(),
                ProxyLaunch.ENV_TOKEN,
                TOKEN));
    proxy.getOutputStream().close(); // a sidecar does not stop on stdin EOF
    assertThat(readyLine(proxy)).isEqualTo(ProxyMain.READY + session.value());

    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> health =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.body()).contains("\"session\":\"" + session.value() + "\"");

    proxy.destroy(); // SIGTERM, as the kubelet stops it
    assertThat(proxy.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aSidecarWithoutItsTokenNamesTheVariableToSet() throws Exception {
    Process proxy =
        spawn(
            List.of("--session", session.value(), "--listen", "127.0.0.1:8091"),
            Map.of(
                ProxyLaunch.ENV_BASE_URL,
                "https://provider.example",
                ProxyLaunch.ENV_API,
                "openai"));

    assertThat(proxy.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(proxy.exitValue()).isEqualTo(ProxyMain.EXIT_INVALID);
    assertThat(new String(proxy.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains(ProxyLaunch.ENV_TOKEN + " is not set");
  }

  private ProxyLaunch launch(Path socket, String token, URI upstream) {
    return new ProxyLaunch(
        session.value(),
        "unix:" + socket,
        new ProxyLaunch.Provider(
            "fake",
            upstream.toString(),
            token,
            "anthropic",
            provider.caCertificate().toString(),
            null,
            null),
        null);
  }

  private static ProxyLaunch withApi(ProxyLaunch launch, String api) {
    ProxyLaunch.Provider p = launch.provider();
    return new ProxyLaunch(
        launch.session(),
        launch.listen(),
        new ProxyLaunch.Provider(
            p.name(), p.baseUrl(), p.token(), api, p.caFile(), p.secrets(), p.authHeader()),
        null);
  }

  private Process spawn(List<String> args) throws IOException {
    return spawn(args, Map.of());
  }

  private Process spawn(List<String> args, Map<String, String> env) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(ProxyProcess.JVM_OPTIONS);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ProxyMain.class.getName());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    Process process = builder.start();
    started.add(process);
    return process;
  }

  private static void write(Process process, String text) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write(text.getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  private static String readyLine(Process process) throws IOException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    return line == null ? "" : line;
  }

  private static String post(Path socket, String path, String body) throws IOException {
    try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      channel.write(
          ByteBuffer.wrap(
              ("POST "
                      + path
                      + " HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n"
                      + "Content-Type: application/json\r\nx-api-key: placeholder\r\n"
                      + "anthropic-version: 2023-06-01\r\nContent-Length: "
                      + bytes.length
                      + "\r\n\r\n"
                      + body)
                  .getBytes(StandardCharsets.UTF_8)));
      return new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
