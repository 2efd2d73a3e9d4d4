package dev.berth.protocol.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFilesTest {

  @TempDir Path dir;

  static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void createdDirectoriesAndEveryMissingParentAre0700() throws Exception {
    Path deep = dir.resolve("a/b/c");

    PrivateFiles.createDirectories(deep);

    assertThat(mode(dir.resolve("a"))).isEqualTo("rwx------");
    assertThat(mode(dir.resolve("a/b"))).isEqualTo("rwx------");
    assertThat(mode(deep)).isEqualTo("rwx------");
  }

  @Test
  void aDirectoryThatExistsKeepsItsMode() throws Exception {
    Path existing = Files.createDirectory(dir.resolve("open"));
    Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rwxr-xr-x"));

    PrivateFiles.createDirectories(existing.resolve("inner"));

    assertThat(mode(existing)).isEqualTo("rwxr-xr-x");
    assertThat(mode(existing.resolve("inner"))).isEqualTo("rwx------");
  }

  @Test
  void aCreatedFileIs0600AndASecondCreateLeavesItAlone() throws Exception {
    Path file = dir.resolve("node.log");

    assertThat(PrivateFiles.createFileIfMissing(file)).isTrue();
    Files.writeString(file, "kept");
    assertThat(PrivateFiles.createFileIfMissing(file)).isFalse();

    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(Files.readString(file)).isEqualTo("kept");
  }

  @Test
  void aChannelThatCreatesItsFileCreatesIt0600() throws Exception {
    Path file = dir.resolve("segment");

    try (FileChannel channel =
        PrivateFiles.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }

    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(Files.size(file)).isEqualTo(3);
  }

  @Test
  void writeReplacesALeftoverTemporaryFileOfAWiderModeWithAPrivateOne() throws Exception {
    Path temp = dir.resolve("node.json.tmp");
    Files.writeString(temp, "old and longer");
    Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));

    PrivateFiles.write(temp, "new".getBytes(StandardCharsets.UTF_8));

    assertThat(mode(temp)).isEqualTo("rw-------");
    assertThat(Files.readString(temp)).isEqualTo("new");
  }

  @Test
  void restrictNarrowsAFileALibraryCreatedAndSkipsOneThatIsMissing() throws Exception {
    Path file = Files.writeString(dir.resolve("berth.db-wal"), "wal");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    PrivateFiles.restrict(file);
    PrivateFiles.restrict(dir.resolve("berth.db-shm"));

    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(dir.resolve("berth.db-shm")).doesNotExist();
  }
}
