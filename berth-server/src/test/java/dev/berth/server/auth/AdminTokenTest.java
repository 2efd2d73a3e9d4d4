package dev.berth.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.protocol.files.NotPrivateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminTokenTest {
  private static final String GOOD_ENV_TOKEN = "0123456789abcdef0123456789abcdef";

  @TempDir Path dir;

  private Path dataDir() {
    return dir.resolve("data");
  }

  private Path file() {
    return dataDir().resolve(AdminToken.FILE_NAME);
  }

  @Test
  void theFirstStartCreatesA256BitHexTokenInAFileOnlyItsOwnerCanReadOrWrite() throws Exception {
    String token = AdminToken.loadOrCreate(dataDir(), Optional.empty());
    assertThat(token).matches("[0-9a-f]{64}");
    assertThat(Files.readString(file())).isEqualTo(token + "\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file())))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir())))
        .as("the data directory it created")
        .isEqualTo("rwx------");
  }

  @Test
  void theNextStartReadsTheSameTokenBack() {
    String first = AdminToken.loadOrCreate(dataDir(), Optional.empty());
    assertThat(AdminToken.loadOrCreate(dataDir(), Optional.empty())).isEqualTo(first);
  }

  @Test
  void twoStartsThatGenerateDifferentTokensAgreeOnTheFirstOneStored() {
    String first = AdminToken.loadOrCreate(dataDir(), Optional.empty(), new SplittableRandom(1));
    String second = AdminToken.loadOrCreate(dataDir(), Optional.empty(), new SplittableRandom(2));
    assertThat(second).isEqualTo(first);
  }

  @Test
  void concurrentFirstStartsAllGetTheOneTokenInTheFileAndLeaveNoTemporaryFiles() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<String>> tokens = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        long seed = i;
        tokens.add(
            pool.submit(
                () -> {
                  start.await();
                  return AdminToken.loadOrCreate(
                      dataDir(), Optional.empty(), new SplittableRandom(seed));
                }));
      }
      start.countDown();
      String stored = null;
      for (Future<String> t : tokens) {
        String token = t.get();
        stored = stored == null ? token : stored;
        assertThat(token).isEqualTo(stored);
      }
      assertThat(Files.readString(file()).strip()).isEqualTo(stored);
      try (Stream<Path> files = Files.list(dataDir())) {
        assertThat(files).containsExactly(file());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theEnvironmentTokenWinsAndNoFileIsWritten() throws Exception {
    Files.createDirectories(dataDir());
    assertThat(AdminToken.loadOrCreate(dataDir(), Optional.of(GOOD_ENV_TOKEN)))
        .isEqualTo(GOOD_ENV_TOKEN);
    assertThat(file()).doesNotExist();
  }

  @Test
  void theEnvironmentTokenWinsOverAnExistingFile() {
    String fromFile = AdminToken.loadOrCreate(dataDir(), Optional.empty());
    assertThat(AdminToken.loadOrCreate(dataDir(), Optional.of(GOOD_ENV_TOKEN)))
        .isEqualTo(GOOD_ENV_TOKEN)
        .isNotEqualTo(fromFile);
  }

  @Test
  void aShortEnvironmentTokenIsRefusedNamingTheVariableAndTheRuleButNotTheValue() {
    assertThatThrownBy(() -> AdminToken.loadOrCreate(dataDir(), Optional.of("short-secret")))
        .isInstanceOf(InvalidValueException.class)
        .hasMessage(
            "BERTH_ADMIN_TOKEN must hold a token of 32 to 1024 characters, was 12 characters;"
                + " generate one with: openssl rand -hex 32")
        .message()
        .doesNotContain("short-secret");
    assertThat(dataDir()).doesNotExist();
  }

  @Test
  void anEmptyEnvironmentTokenIsRefusedRatherThanIgnored() {
    assertThatThrownBy(() -> AdminToken.loadOrCreate(dataDir(), Optional.of("")))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("BERTH_ADMIN_TOKEN")
        .hasMessageContaining("was 0 characters");
  }

  @Test
  void anEnvironmentTokenABearerHeaderCannotCarryIsRefused() {
    String spaced = "0123456789abcdef 0123456789abcdef";
    assertThatThrownBy(() -> AdminToken.loadOrCreate(dataDir(), Optional.of(spaced)))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("BERTH_ADMIN_TOKEN must hold only letters, digits")
        .message()
        .doesNotContain(spaced);
  }

  @Test
  void aTokenFileThatOthersCanReadIsRefusedWithTheChmodThatFixesIt() throws Exception {
    AdminToken.loadOrCreate(dataDir(), Optional.empty());
    Files.setPosixFilePermissions(file(), PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> AdminToken.loadOrCreate(dataDir(), Optional.empty()))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageContaining("has mode rw-r--r--")
        .hasMessageContaining("chmod 600 " + file());
  }

  @Test
  void aHandWrittenTokenFileIsReadWithoutItsTrailingNewline() throws Exception {
    Files.createDirectories(dataDir());
    Files.writeString(file(), GOOD_ENV_TOKEN + "\n");
    Files.setPosixFilePermissions(file(), PosixFilePermissions.fromString("rw-------"));
    assertThat(AdminToken.loadOrCreate(dataDir(), Optional.empty())).isEqualTo(GOOD_ENV_TOKEN);
  }

  @Test
  void aTokenFileWithATooShortTokenIsRefusedWithTheWayOut() throws Exception {
    Files.createDirectories(dataDir());
    Files.writeString(file(), "abc\n");
    Files.setPosixFilePermissions(file(), PosixFilePermissions.fromString("rw-------"));
    assertThatThrownBy(() -> AdminToken.loadOrCreate(dataDir(), Optional.empty()))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("admin token file " + file() + " must hold a token of 32")
        .hasMessageContaining("delete the file to have a new token generated");
  }
}
