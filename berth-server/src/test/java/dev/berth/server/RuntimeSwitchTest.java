package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.Session;
import dev.berth.core.testing.TestSessions;
import dev.berth.server.store.sql.SqlSessionStore;
import dev.berth.server.store.sql.SqlTimings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory (here with its SQLite store) whose sessions have runtimes of one kind refuses a
 * start with the other {@code --runtime}, naming the sessions and the ways out; sessions without a
 * runtime never stand in the way.
 */
class RuntimeSwitchTest {
  private static final Clock CLOCK = Clock.systemUTC();
  private static final RuntimeChoice KUBERNETES =
      new RuntimeChoice.Kubernetes(
          Optional.of("berth"), "berth-agent:test", Optional.empty(), new byte[32]);

  @TempDir Path dataDir;

  @Test
  void aDataDirectoryWhoseSessionsRunLocallyRefusesTheKubernetesRuntimeAndStillStartsLocally()
      throws Exception {
    Session local = storeSessionOn("local");

    assertThatThrownBy(() -> open(KUBERNETES))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("--runtime kubernetes was given")
        .hasMessageContaining("holds 1 session whose runtime runs on local")
        .hasMessageContaining(local.id().value())
        .hasMessageContaining("Start with --runtime local as before")
        .hasMessageContaining("suspend or delete those sessions");

    close(open(new RuntimeChoice.Local()));
  }

  @Test
  void aStoreWhoseSessionsRunInPodsRefusesTheLocalRuntime() throws Exception {
    storeSessionOn("kubernetes");
    storeSessionOn("kubernetes");

    assertThatThrownBy(() -> open(new RuntimeChoice.Local()))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("--runtime local was given")
        .hasMessageContaining("holds 2 sessions whose runtime runs on kubernetes")
        .hasMessageContaining("Start with --runtime kubernetes as before");
  }

  @Test
  void sessionsWithoutARuntimeMoveToEitherRuntime() throws Exception {
    try (SqlSessionStore store = sqlite()) {
      store.create(TestSessions.requested(Instant.now()));
    }

    close(open(KUBERNETES));
    close(open(new RuntimeChoice.Local()));
  }

  private Session storeSessionOn(String kind) {
    Instant now = Instant.now();
    try (SqlSessionStore store = sqlite()) {
      return store.create(
          TestSessions.makeReady(TestSessions.requested(now).startProvision(kind, now), now));
    }
  }

  private SqlSessionStore sqlite() {
    return SqlSessionStore.openSqlite(dataDir.resolve(DataDirectory.DATABASE), CLOCK);
  }

  private ServerBackends open(RuntimeChoice runtime) {
    ServerConfig config =
        new ServerConfig("127.0.0.1", 0, dataDir)
            .withBackends(
                new ServerConfig.Backends(
                    new StoreChoice.Sqlite(),
                    new ArchiveChoice.Filesystem(),
                    Optional.empty(),
                    runtime));
    return ServerBackends.open(config, CLOCK, SqlTimings.NONE);
  }

  private static void close(ServerBackends backends) throws Exception {
    backends.runtimeClaim().close();
    backends.store().close();
  }

  @Test
  void theKindOfEachRuntimeChoiceIsTheOneItsSessionsRecord() {
    assertThat(RuntimeSwitch.kind(new RuntimeChoice.Local())).isEqualTo("local");
    assertThat(RuntimeSwitch.kind(KUBERNETES)).isEqualTo("kubernetes");
  }
}
