package dev.berth.server.auth;

import dev.berth.core.error.InvalidValueException;
import dev.berth.protocol.files.PrivacyRule;
import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The administrator's token: {@value #ENV} when set, else the one kept in {@code
 * <data-dir>/}{@value #FILE_NAME}, generated at the first start.
 *
 * <p>The file is written so that nobody ever reads a partial token and two servers starting at once
 * on one data directory agree on one token: the token goes to a temporary file created with mode
 * 0600, is flushed to disk, and is then hard-linked to its final name, which fails when the name
 * already exists; the loser reads the winner's file. Where hard links are not supported the
 * temporary file is renamed instead. A file that another user owns or that group or others may
 * reach is refused rather than silently repaired, as ssh does with private keys ({@link
 * PrivacyRule}).
 */
public final class AdminToken {

  /** The environment variable that sets the token explicitly. */
  public static final String ENV = "BERTH_ADMIN_TOKEN";

  /** The token file's name inside the data directory. */
  public static final String FILE_NAME = "admin.token";

  /** The shortest token accepted from {@value #ENV} or the file. */
  public static final int MIN_LENGTH = 32;

  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  private AdminToken() {}

  /**
   * The admin token: {@code fromEnv} (the value of {@value #ENV}) when present, else the token in
   * {@code <dataDir>/admin.token}, created with 256 random bits (hex) and mode 0600 when missing.
   * {@code dataDir} is created (0700) when missing. The environment's token is never written to the
   * file.
   *
   * @throws InvalidValueException when the environment's token or the file's content is shorter
   *     than {@value #MIN_LENGTH} characters, longer than 1024, or has characters a bearer header
   *     cannot carry
   * @throws dev.berth.protocol.files.NotPrivateException when the file is owned by another user or
   *     group or others have any access to it
   * @throws UncheckedIOException when the directory or the file cannot be read or written
   */
  public static String loadOrCreate(Path dataDir, Optional<String> fromEnv) {
    return loadOrCreate(dataDir, fromEnv, new SecureRandom());
  }

  static String loadOrCreate(Path dataDir, Optional<String> fromEnv, RandomGenerator random) {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(fromEnv, "fromEnv");
    if (fromEnv.isPresent()) {
      return validated(fromEnv.get(), ENV, "generate one with: openssl rand -hex 32");
    }
    Path file = dataDir.resolve(FILE_NAME);
    try {
      if (!Files.exists(file)) {
        create(dataDir, file, Tokens.generate(random));
      }
      return read(file);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "admin token file "
              + file
              + " could not be read or created: "
              + e
              + "; check that the data directory is writable, or set "
              + ENV,
          e);
    }
  }

  private static String validated(String token, String source, String wayOut) {
    if (token.length() < MIN_LENGTH || token.length() > Tokens.MAX_LENGTH) {
      throw new InvalidValueException(
          source
              + " must hold a token of "
              + MIN_LENGTH
              + " to "
              + Tokens.MAX_LENGTH
              + " characters, was "
              + token.length()
              + " characters; "
              + wayOut);
    }
    if (!Tokens.isBearerToken(token)) {
      throw new InvalidValueException(
          source
              + " must hold only letters, digits and - . _ ~ + / (then optional '=' padding), so"
              + " that a bearer header can carry it, and it has other characters; "
              + wayOut);
    }
    return token;
  }

  private static String read(Path file) throws IOException {
    PrivacyRule.requirePrivate(file, "admin token file");
    String content = Files.readString(file, StandardCharsets.UTF_8).strip();
    return validated(
        content,
        "admin token file " + file,
        "delete the file to have a new token generated at the next start, or set " + ENV);
  }

  private static void create(Path dataDir, Path file, String token) throws IOException {
    PrivateFiles.createDirectories(dataDir);
    FileAttribute<?>[] ownerOnly =
        isPosix(dataDir)
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
            : new FileAttribute<?>[0];
    Path temporary = Files.createTempFile(dataDir, "." + FILE_NAME + "-", ".tmp", ownerOnly);
    try {
      try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
        ByteBuffer bytes = ByteBuffer.wrap((token + "\n").getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        channel.force(true);
      }
      publish(temporary, file);
      syncDirectory(dataDir);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  private static void publish(Path temporary, Path file) throws IOException {
    try {
      Files.createLink(file, temporary);
    } catch (FileAlreadyExistsException e) {
      // Another server created it first: its token is the one.
    } catch (UnsupportedOperationException | FileSystemException e) {
      try {
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException notAtomic) {
        Files.move(temporary, file);
      }
    }
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Not every platform can open a directory; the file itself is already on disk.
    }
  }

  private static boolean isPosix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}
