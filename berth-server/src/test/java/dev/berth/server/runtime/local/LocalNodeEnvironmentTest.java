package dev.berth.server.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.protocol.node.NodeInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node the server starts holds none of the server's secrets in its environment, where anything
 * running as its user could read them: read back from the real node's {@code /proc/<pid>/environ}.
 */
class LocalNodeEnvironmentTest {

  private static final String ADMIN_TOKEN = "admin-token-that-must-stay-in-the-server";
  private static final String PROVIDER_KEY = "provider-key-that-must-stay-in-the-server";

  @TempDir Path nodeDir;

  @AfterEach
  void stopTheNode() {
    NodeInfo.read(nodeDir)
        .flatMap(info -> ProcessHandle.of(info.pid()))
        .ifPresent(
            process -> {
              process.destroy();
              process.onExit().orTimeout(20, TimeUnit.SECONDS).join();
            });
  }

  @Test
  void theStartedNodeGetsOnlyTheAllowedVariablesOfTheServersEnvironment() throws IOException {
    Map<String, String> server = new HashMap<>(System.getenv());
    server.put("BERTH_ADMIN_TOKEN", ADMIN_TOKEN);
    server.put("BERTH_PROVIDER_ANTHROPIC_KEY", PROVIDER_KEY);
    server.put("BERTH_DATABASE_PASSWORD", "database-password");
    server.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    server.put("LANG", "C.UTF-8");

    LocalNode node =
        new LocalNode(nodeDir, LocalNode.javaLaunchCommand(), Duration.ofSeconds(60), server);
    long pid = node.ensureRunning().pid();

    Map<String, String> environ = environmentOf(pid);
    String raw = Files.readString(Path.of("/proc", Long.toString(pid), "environ"));
    assertThat(raw).doesNotContain(ADMIN_TOKEN).doesNotContain(PROVIDER_KEY);
    assertThat(environ).doesNotContainKeys("BERTH_ADMIN_TOKEN", "BERTH_DATABASE_PASSWORD");
    assertThat(LocalNode.NODE_ENVIRONMENT).containsAll(environ.keySet());
    assertThat(environ).containsEntry("PATH", server.get("PATH")).containsEntry("LANG", "C.UTF-8");
  }

  @Test
  void aVariableTheServerDoesNotHaveIsNotInventedForTheNode() {
    assertThat(LocalNode.nodeEnvironment(Map.of("PATH", "/bin", "BERTH_ADMIN_TOKEN", "x")))
        .isEqualTo(Map.of("PATH", "/bin"));
  }

  private static Map<String, String> environmentOf(long pid) throws IOException {
    byte[] bytes = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
    Map<String, String> variables = new LinkedHashMap<>();
    for (String entry : new String(bytes, StandardCharsets.UTF_8).split("\0")) {
      int eq = entry.indexOf('=');
      if (eq > 0) {
        variables.put(entry.substring(0, eq), entry.substring(eq + 1));
      }
    }
    return variables;
  }
}
