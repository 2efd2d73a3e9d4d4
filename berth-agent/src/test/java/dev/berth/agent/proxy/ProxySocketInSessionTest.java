package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.agentcli.AgentPaths;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.NetworkMode;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.WritablePaths;
import dev.berth.core.session.SessionId;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an agent session sees of its credential proxy's socket: each connection its forwarder makes
 * is a socket of the session's network namespace that carries the address the proxy bound, which
 * {@code ss -xa} and {@code /proc/net/unix} show there. That address must not name the node's data
 * directory.
 */
class ProxySocketInSessionTest {

  @TempDir Path root;
  private ProxyProcess proxy;
  private LaunchPlan plan;

  @AfterEach
  void stop() {
    if (plan != null) {
      plan.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void theSocketTableInsideTheSessionDoesNotNameTheNodesDataDirectory() throws Exception {
    Sandbox host = Sandbox.detect(Path.of("/sys/fs/cgroup"));
    assertThat(host.isolation().sandbox())
        .as("bubblewrap must work here: " + host.isolation().weaknesses())
        .isEqualTo("bwrap");
    // As the node lays it out: a private proxies/ under its root, the socket named by a digest.
    Path proxies = Files.createDirectories(root.resolve("proxies"));
    Files.setPosixFilePermissions(proxies, PosixFilePermissions.fromString("rwx------"));
    Path socket = proxies.resolve("0123abcd.sock");
    // As the node starts it: a process of its own, which binds the socket through the alias.
    proxy =
        ProxyProcess.start(
            new ProxyLaunch(
                SessionId.generate(RandomGenerator.getDefault()).value(),
                "unix:" + socket,
                new ProxyLaunch.Provider(
                    "p",
                    "https://127.0.0.1:1",
                    "sk-socket-test-token",
                    "anthropic",
                    null,
                    null,
                    null),
                null));
    AgentPaths paths = AgentPaths.under(root.resolve("state"));
    Files.createDirectories(paths.workspace());
    plan =
        host.agentPlan(
            "proxy-socket-" + ProcessHandle.current().pid(),
            List.of("true"),
            WritablePaths.of(paths.home())
                .withTmp(Files.createDirectories(root.resolve("state").resolve("tmp")))
                .withTarget(paths.home(), AgentPaths.SANDBOX_HOME),
            new ResourceLimits(64, 1L << 30, 1L << 30),
            socket,
            List.of());
    // A connection held open (keep-alive) while the tables are read.
    String script =
        String.join(
            "\n",
            "exec 3<>/dev/tcp/127.0.0.1/" + NetworkMode.PROXY_PORT,
            "printf 'GET /healthz HTTP/1.1\\r\\nHost: proxy\\r\\n\\r\\n' >&3",
            "head -c 15 <&3; echo",
            "cat /proc/net/unix",
            "ss -xa 2>/dev/null",
            "echo done");

    String seen = probe(paths, script);

    assertThat(seen).contains("HTTP/1.1 200 OK", "/tmp/berth-proxy-", "0123abcd.sock", "done");
    assertThat(seen).doesNotContain(root.toString()).doesNotContain(proxies.toString());
    assertThat(Files.exists(socket)).as("the socket stays where the node asked for it").isTrue();
  }

  private String probe(AgentPaths paths, String script) throws Exception {
    Path workspace = paths.inSandbox().workspace();
    ProcessBuilder builder =
        new ProcessBuilder(plan.wrap(List.of("/bin/bash", "-c", script), workspace))
            .directory(plan.spawnDirectory(workspace).toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
    builder.environment().putAll(plan.environment());
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    return out;
  }
}
