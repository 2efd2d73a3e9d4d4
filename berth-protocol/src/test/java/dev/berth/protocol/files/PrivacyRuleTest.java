package dev.berth.protocol.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.security.auth.module.UnixSystem;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivacyRuleTest {

  @TempDir Path dir;

  private Path directory(String name, String mode) throws Exception {
    Path created = Files.createDirectory(dir.resolve(name));
    Files.setPosixFilePermissions(created, PosixFilePermissions.fromString(mode));
    return created;
  }

  private Path file(String name, String mode) throws Exception {
    Path created = Files.writeString(dir.resolve(name), "secret");
    Files.setPosixFilePermissions(created, PosixFilePermissions.fromString(mode));
    return created;
  }

  @Test
  void directoriesAndFilesOnlyTheirOwnerMayReachAreAccepted() throws Exception {
    Path data = directory("data", "rwx------");
    Path token = file("admin.token", "rw-------");
    Path readOnly = file("read-only.token", "r--------");

    assertThatCode(
            () -> {
              PrivacyRule.requirePrivate(data, "data directory");
              PrivacyRule.requirePrivate(token, "admin token file");
              PrivacyRule.requirePrivate(readOnly, "admin token file");
            })
        .doesNotThrowAnyException();
  }

  @Test
  void aWorldReadableDirectoryIsRefusedNamingItsModeTheRuleAndTheChmod() throws Exception {
    Path data = directory("data", "rwxr-xr-x");

    assertThatThrownBy(() -> PrivacyRule.requirePrivate(data, "data directory"))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith("data directory " + data + " has mode rwxr-xr-x (0755)")
        .hasMessageContaining("group and others must have no access (rwx------)")
        .hasMessageEndingWith("run: chmod 700 " + data)
        .extracting(e -> ((NotPrivateException) e).path())
        .isEqualTo(data);
  }

  @Test
  void aFileOnlyTheGroupMayWriteIsRefusedWithTheChmodForAFile() throws Exception {
    Path token = file("node.token", "rw--w----");

    assertThatThrownBy(() -> PrivacyRule.requirePrivate(token, "node token file"))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith("node token file " + token + " has mode rw--w---- (0620)")
        .hasMessageContaining("(rw-------)")
        .hasMessageEndingWith("run: chmod 600 " + token);
  }

  @Test
  void aFileOwnedByAnotherUserIsRefusedWithTheChown() throws Exception {
    assumeTrue(new UnixSystem().getUid() == 0, "only root can give a file to another user");
    Path token = file("admin.token", "rw-------");
    UserPrincipal nobody =
        dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    Files.setOwner(token, nobody);

    assertThatThrownBy(() -> PrivacyRule.requirePrivate(token, "admin token file"))
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith("admin token file " + token + " is owned by uid ")
        .hasMessageContaining("(nobody), but Berth runs as uid 0")
        .hasMessageContaining("run: chown ")
        .hasMessageEndingWith(token + ", or start Berth as nobody");
  }

  @Test
  void aPathThatDoesNotExistIsCheckedOnlyWhenItMustExist() {
    Path missing = dir.resolve("berth.db-wal");

    assertThatCode(() -> PrivacyRule.requirePrivateIfExists(missing, "database file"))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> PrivacyRule.requirePrivate(missing, "database file"))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("database file " + missing);
  }

  @Test
  void modesAreWrittenInOctalAsChmodTakesThem() {
    assertThat(PrivacyRule.octal(PosixFilePermissions.fromString("rwxr-x--x"))).isEqualTo("0751");
    assertThat(PrivacyRule.octal(PosixFilePermissions.fromString("---------"))).isEqualTo("0000");
  }
}
