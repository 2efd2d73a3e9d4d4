package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.protocol.files.NotPrivateException;
import dev.berth.protocol.files.PrivateFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DataDirectoryTest {

  @TempDir Path dir;

  private Path dataDir() {
    return dir.resolve("home").resolve(".berth");
  }

  private static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void aMissingDataDirectoryIsCreated0700WithTheParentsItNeeds() throws Exception {
    DataDirectory.prepare(dataDir());

    assertThat(mode(dataDir())).isEqualTo("rwx------");
    assertThat(mode(dataDir().getParent())).isEqualTo("rwx------");
  }

  @Test
  void aWorldReadableDataDirectoryIsRefusedWithTheChmodThatFixesIt() throws Exception {
    Files.createDirectories(dataDir());
    Files.setPosixFilePermissions(dataDir(), PosixFilePermissions.fromString("rwxr-xr-x"));

    assertThatThrownBy(() -> DataDirectory.prepare(dataDir()))
        .isInstanceOf(NotPrivateException.class)
        .hasMessage(
            "data directory "
                + dataDir()
                + " has mode rwxr-xr-x (0755), but Berth keeps its own files private to the"
                + " user it runs as: group and others must have no access (rwx------); run:"
                + " chmod 700 "
                + dataDir());
  }

  @Test
  void aPrivateDataDirectoryWithPrivateSecretsIsAccepted() throws Exception {
    DataDirectory.prepare(dataDir());
    for (String name : new String[] {"admin.token", "berth.db", "berth.db-wal"}) {
      Files.writeString(dataDir().resolve(name), "x");
      Files.setPosixFilePermissions(
          dataDir().resolve(name), PosixFilePermissions.fromString("rw-------"));
    }

    assertThatCode(() -> DataDirectory.prepare(dataDir())).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @CsvSource({
    "admin.token, admin token file, rw-r--r--, chmod 600",
    "berth.db, database file, rw-rw----, chmod 600",
    "berth.db-wal, database file, rw----r--, chmod 600",
    "berth.db-shm, database file, rw-r--r--, chmod 600",
    "node/node.token, node token file, rw-r-----, chmod 600",
    "node, node state directory, rwxr-x---, chmod 700",
  })
  void aSecretOthersMayReachIsRefusedNamingWhatItIs(
      String name, String role, String wrongMode, String fix) throws Exception {
    DataDirectory.prepare(dataDir());
    Path secret = dataDir().resolve(name);
    if (fix.endsWith("700")) {
      Files.createDirectory(secret);
    } else {
      PrivateFiles.createDirectories(secret.getParent());
      Files.writeString(secret, "x");
    }
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString(wrongMode));

    assertThatThrownBy(() -> DataDirectory.prepare(dataDir()))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith(role + " " + secret + " has mode " + wrongMode)
        .hasMessageEndingWith("run: " + fix + " " + secret);
  }
}
