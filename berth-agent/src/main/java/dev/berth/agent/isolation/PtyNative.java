package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Puts pty4j's {@code libpty.so} in one stable folder and points pty4j at it.
 *
 * <p>Left alone, pty4j copies the library into a new {@code pty4j-…} temp directory on every JVM
 * start and never deletes it. With {@code pty4j.preferred.native.folder} set it loads {@code
 * <folder>/linux/<arch>/libpty.so} instead. The folder is named after the library's SHA-256, so an
 * upgrade gets a fresh folder and a stale or tampered file is never loaded: an existing file is
 * used only when its bytes are the jar's.
 */
public final class PtyNative {
  static final String PROPERTY = "pty4j.preferred.native.folder";

  private PtyNative() {}

  /** Prepares the library under {@code java.io.tmpdir}, unless the property is already set. */
  public static synchronized void prepare() {
    if (System.getProperty(PROPERTY) == null) {
      prepare(Path.of(System.getProperty("java.io.tmpdir")));
    }
  }

  /**
   * Extracts the library below {@code baseDirectory} (once) and sets the property. Call before the
   * first shell starts. Does nothing on platforms this build does not map (pty4j then falls back to
   * its own extraction).
   *
   * @return the folder pty4j will load from, when one was prepared
   * @throws UncheckedIOException when the folder cannot be written
   */
  public static synchronized Optional<Path> prepare(Path baseDirectory) {
    Optional<String> arch = archDirectory();
    if (arch.isEmpty()) {
      return Optional.empty();
    }
    String resource = "resources/com/pty4j/native/linux/" + arch.get() + "/libpty.so";
    try (InputStream in =
        com.pty4j.PtyProcess.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        return Optional.empty();
      }
      byte[] library = in.readAllBytes();
      // One folder per user: nodes of several users share one temp directory, and each trusts only
      // a folder of its own (requireOwnFolders).
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      Path folder = baseDirectory.resolve("berth-pty4j-" + uid + "-" + digest(library));
      Path libraries = folder.resolve("linux").resolve(arch.get());
      Path target = libraries.resolve("libpty.so");
      Files.createDirectories(libraries);
      requireOwnFolders(folder, libraries);
      install(library, target);
      System.setProperty(PROPERTY, folder.toString());
      return Optional.of(folder);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare pty4j's native library", e);
    }
  }

  /**
   * In a shared temp directory another user could have created the folder first and swap the file
   * after it was checked; only folders this process's user owns are trusted.
   */
  private static void requireOwnFolders(Path top, Path bottom) throws IOException {
    Object self = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    for (Path dir = bottom; dir != null && dir.startsWith(top); dir = dir.getParent()) {
      Object owner = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
      if (!owner.equals(self)) {
        throw new IllegalStateException(
            dir
                + " belongs to uid "
                + owner
                + ", not to this process's uid "
                + self
                + "; remove it or call PtyNative.prepare(Path) with a private directory");
      }
    }
  }

  private static void install(byte[] library, Path target) throws IOException {
    if (Files.isRegularFile(target) && Arrays.equals(Files.readAllBytes(target), library)) {
      return;
    }
    Path partial = Files.createTempFile(target.getParent(), "libpty", ".partial");
    try {
      Files.write(partial, library);
      Files.move(
          partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  private static Optional<String> archDirectory() {
    if (!System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux")) {
      return Optional.empty();
    }
    return switch (System.getProperty("os.arch")) {
      case "amd64", "x86_64" -> Optional.of("x86-64");
      case "aarch64" -> Optional.of("aarch64");
      default -> Optional.empty();
    };
  }

  private static String digest(byte[] bytes) {
    return dev.berth.core.digest.Sha256.hexPrefix(bytes, 6);
  }
}
