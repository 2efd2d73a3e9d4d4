package dev.berth.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.http.AgentHttpServer;
import dev.berth.agent.testing.PrivateTree;
import dev.berth.protocol.files.NotPrivateException;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.protocol.node.NodeToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's state directory and its own files are private to its user (issue 11). */
class NodePrivateFilesTest {

  @TempDir Path root;

  private Path stateDir() {
    return root.resolve("data").resolve("node");
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  private static NodeDaemon start(Path dir) {
    return NodeDaemon.start(dir, AgentHttpServer.Settings.loopback(0), config -> config);
  }

  @Test
  void aNodeCreatesItsStateDirectory0700AndItsTokenLockAndInfo0600() throws Exception {
    try (NodeDaemon node = start(stateDir())) {
      assertThat(node.port()).isPositive();

      assertThat(mode(root.resolve("data"))).isEqualTo("rwx------");
      assertThat(mode(stateDir())).isEqualTo("rwx------");
      for (String file : new String[] {NodeToken.FILE, NodeDaemon.LOCK_FILE, NodeInfo.FILE}) {
        assertThat(mode(stateDir().resolve(file))).as(file).isEqualTo("rw-------");
      }
      assertThat(PrivateTree.exposed(stateDir())).isEmpty();
    }
  }

  @Test
  void aNodeRefusesAWorldReadableStateDirectoryAndWritesNothingInIt() throws Exception {
    Files.createDirectories(stateDir());
    Files.setPosixFilePermissions(stateDir(), PosixFilePermissions.fromString("rwxr-xr-x"));

    assertThatThrownBy(() -> start(stateDir()))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith("node state directory " + stateDir() + " has mode rwxr-xr-x")
        .hasMessageEndingWith("run: chmod 700 " + stateDir());
    try (var files = Files.list(stateDir())) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aNodeAndItsControlPlaneRefuseATokenOthersMayRead() throws Exception {
    NodeToken.readOrCreate(stateDir());
    Path token = stateDir().resolve(NodeToken.FILE);
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(() -> start(stateDir()))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith("node token file " + token + " has mode rw-r--r--")
        .hasMessageEndingWith("run: chmod 600 " + token);
    assertThatThrownBy(() -> NodeToken.readOrCreate(stateDir()))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageContaining("chmod 600 " + token);
    assertThat(NodeInfo.read(stateDir())).isEmpty();
  }
}
