package dev.berth.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The URL and token {@code berth login} saved: {@code <config dir>/credentials}, a JSON object
 * {@code {"url":…,"token":…}} readable by its owner only (mode 0600, in a 0700 directory when it
 * creates one). It is written to a temporary file created with mode 0600 and renamed over the old
 * one, so the token is never in a file others can read, not even for a moment, and a crash leaves
 * the old file or the new one.
 */
final class CredentialStore {

  /** What was saved. */
  record Credentials(String url, String token) {
    @Override
    public String toString() {
      return "Credentials[url=" + url + ", token=(hidden)]";
    }
  }

  static final String FILE = "credentials";

  private static final Set<PosixFilePermission> OWNER_FILE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_DIR =
      PosixFilePermissions.fromString("rwx------");

  private final Path file;
  private final JsonMapper json = JsonMapper.builder().build();

  CredentialStore(Path directory) {
    this.file = directory.resolve(FILE);
  }

  Path file() {
    return file;
  }

  /**
   * The saved credentials; empty when there are none.
   *
   * @throws UsageException when the file exists but is not what {@code berth login} writes
   */
  Optional<Credentials> load() {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      JsonNode node = json.readTree(Files.readString(file, StandardCharsets.UTF_8));
      String url = node.path("url").asString("");
      String token = node.path("token").asString("");
      if (url.isEmpty() || token.isEmpty()) {
        throw new UsageException(file + " has no url and token; run 'berth login' again");
      }
      return Optional.of(new Credentials(url, token));
    } catch (JacksonException e) {
      throw new UsageException(file + " is not valid JSON; run 'berth login' again");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** Whether group or others may read the file: the token would be exposed. */
  boolean readableByOthers() {
    try {
      if (!posix() || !Files.exists(file)) {
        return false;
      }
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
      return permissions.contains(PosixFilePermission.GROUP_READ)
          || permissions.contains(PosixFilePermission.OTHERS_READ);
    } catch (IOException e) {
      return false;
    }
  }

  /** Saves {@code credentials}, replacing what was there. */
  void save(Credentials credentials) {
    try {
      Path directory = Objects.requireNonNull(file.getParent()); // file is <dir>/credentials
      if (!Files.isDirectory(directory)) {
        if (posix()) {
          Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(OWNER_DIR));
        } else {
          Files.createDirectories(directory);
        }
      }
      Path temporary =
          posix()
              ? Files.createTempFile(
                  directory,
                  ".credentials",
                  ".tmp",
                  PosixFilePermissions.asFileAttribute(OWNER_FILE))
              : Files.createTempFile(directory, ".credentials", ".tmp");
      try {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("url", credentials.url());
        body.put("token", credentials.token());
        Files.write(temporary, json.writeValueAsBytes(body));
        if (posix()) {
          Files.setPosixFilePermissions(temporary, OWNER_FILE);
        }
        move(temporary);
      } finally {
        Files.deleteIfExists(temporary);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save credentials in " + file + ": " + e, e);
    }
  }

  private void move(Path temporary) throws IOException {
    try {
      Files.move(
          temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }
}
