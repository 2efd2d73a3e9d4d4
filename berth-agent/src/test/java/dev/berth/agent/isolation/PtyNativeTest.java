package dev.berth.agent.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PtyNativeTest {
  @TempDir Path base;
  private String saved;

  @BeforeEach
  void clearProperty() {
    saved = System.getProperty(PtyNative.PROPERTY);
    System.clearProperty(PtyNative.PROPERTY);
  }

  @AfterEach
  void restoreProperty() {
    if (saved == null) {
      System.clearProperty(PtyNative.PROPERTY);
    } else {
      System.setProperty(PtyNative.PROPERTY, saved);
    }
  }

  @Test
  void extractsTheLibraryOnceIntoAFolderNamedAfterItsContent() throws Exception {
    Optional<Path> folder = PtyNative.prepare(base);

    assertThat(folder).isPresent();
    assertThat(folder.get().getFileName().toString()).matches("berth-pty4j-[0-9]+-[0-9a-f]{12}");
    Path library = folder.get().resolve("linux/x86-64/libpty.so");
    assertThat(library).isRegularFile();
    assertThat(System.getProperty(PtyNative.PROPERTY)).isEqualTo(folder.get().toString());
    long modified = Files.getLastModifiedTime(library).toMillis();

    assertThat(PtyNative.prepare(base)).isEqualTo(folder);
    assertThat(Files.getLastModifiedTime(library).toMillis()).isEqualTo(modified);
    try (var files = Files.list(library.getParent())) {
      assertThat(files).containsExactly(library);
    }
  }

  @Test
  void replacesAFileWhoseBytesAreNotTheJars() throws Exception {
    Path library = PtyNative.prepare(base).orElseThrow().resolve("linux/x86-64/libpty.so");
    byte[] original = Files.readAllBytes(library);
    Files.write(library, new byte[] {1, 2, 3});

    PtyNative.prepare(base);

    assertThat(Files.readAllBytes(library)).isEqualTo(original);
  }
}
