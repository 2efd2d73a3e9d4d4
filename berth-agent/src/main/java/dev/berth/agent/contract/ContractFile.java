package dev.berth.agent.contract;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes one session's {@code contract.json}.
 *
 * <p>Format 1: {@code {"format":1,"session":"<sid>","acceptedIntentVersion":N,
 * "acceptedDesired":"RUNNING|SUSPENDED|TERMINATED","tombstoned":bool,"tombstonedAt":"<ISO
 * instant>"|null,"operations":{"<operation id>":"<reply>",…}}}, operations oldest first. Reading is
 * strict: a missing or unknown field, a wrong type, a duplicate key or a record for another session
 * is a {@link CorruptContractException}, never a silent reset.
 *
 * <p>Writes are atomic: the bytes go to {@code contract.json.tmp} in the same directory, are forced
 * to disk, and the temporary file is renamed over {@code contract.json} with {@code ATOMIC_MOVE};
 * then the directory is forced so that the rename itself survives a power loss (where the platform
 * lets a directory be opened, as Linux does). A crash leaves either the old or the new file, and at
 * worst a stale temporary file, which is never read and is overwritten by the next write. The
 * directory and both files are private to the host's user (0700, 0600). Not thread-safe: {@link
 * LocalContract} serialises all access.
 */
final class ContractFile {

  static final String NAME = "contract.json";
  static final int FORMAT = 1;

  private static final String TEMP_NAME = NAME + ".tmp";
  private static final Set<String> FIELDS =
      Set.of(
          "format",
          "session",
          "acceptedIntentVersion",
          "acceptedDesired",
          "tombstoned",
          "tombstonedAt",
          "operations");
  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private final Path directory;
  private final Path file;

  ContractFile(Path directory) {
    this.directory = directory;
    this.file = directory.resolve(NAME);
  }

  Path path() {
    return file;
  }

  /** The stored record, or empty when the file does not exist. */
  Optional<ContractRecord> read(SessionId expected) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read contract file " + file, e);
    }
    return Optional.of(decode(bytes, expected));
  }

  void write(ContractRecord record) {
    try {
      PrivateFiles.createDirectories(directory);
      Path temp = directory.resolve(TEMP_NAME);
      try (var channel =
          PrivateFiles.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        var buffer = ByteBuffer.wrap(encode(record));
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      move(temp);
      forceDirectory();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write contract file " + file, e);
    }
  }

  /** Removes a temporary file a crash left behind; it was never the contract, the rename is. */
  void discardLeftoverTemp() {
    try {
      Files.deleteIfExists(directory.resolve(TEMP_NAME));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove leftover " + directory.resolve(TEMP_NAME), e);
    }
  }

  private void move(Path temp) throws IOException {
    try {
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException(
          "the file system of "
              + directory
              + " cannot rename atomically; put the host root on one"
              + " that can",
          e);
    }
  }

  private void forceDirectory() {
    try (var channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some platforms (Windows) cannot open a directory; the rename is then as durable as the
      // platform makes it, which is the best this host can do there.
    }
  }

  static byte[] encode(ContractRecord record) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("format", FORMAT);
    root.put("session", record.session().value());
    root.put("acceptedIntentVersion", record.acceptedIntentVersion());
    root.put("acceptedDesired", record.acceptedDesired().name());
    root.put("tombstoned", record.tombstoned());
    record
        .tombstonedAt()
        .ifPresentOrElse(
            at -> root.put("tombstonedAt", at.toString()), () -> root.putNull("tombstonedAt"));
    ObjectNode operations = root.putObject("operations");
    record.operations().forEach(operations::put);
    return MAPPER.writeValueAsBytes(root);
  }

  private ContractRecord decode(byte[] bytes, SessionId expected) {
    JsonNode root;
    try {
      root = MAPPER.readTree(bytes);
    } catch (JacksonException e) {
      throw new CorruptContractException(
          file, "not valid JSON (" + e.getOriginalMessage() + ")", e);
    }
    if (root == null || !root.isObject()) {
      throw new CorruptContractException(file, "expected a JSON object");
    }
    checkFields(root);
    long format = integral(root, "format");
    if (format != FORMAT) {
      throw new CorruptContractException(
          file, "format " + format + " is not known to this host, which reads format " + FORMAT);
    }
    try {
      var record =
          new ContractRecord(
              new SessionId(text(root, "session")),
              integral(root, "acceptedIntentVersion"),
              DesiredState.valueOf(text(root, "acceptedDesired")),
              flag(root, "tombstoned"),
              optionalInstant(root, "tombstonedAt"),
              operations(root));
      if (!record.session().equals(expected)) {
        throw new CorruptContractException(
            file, "it belongs to session " + record.session() + ", not to " + expected);
      }
      return record;
    } catch (InvalidValueException | IllegalArgumentException | DateTimeException e) {
      throw new CorruptContractException(
          file, Objects.requireNonNullElse(e.getMessage(), e.toString()), e);
    }
  }

  private void checkFields(JsonNode root) {
    for (String name : root.propertyNames()) {
      if (!FIELDS.contains(name)) {
        throw new CorruptContractException(file, "unknown field \"" + name + "\"");
      }
    }
    for (String name : FIELDS) {
      if (!root.has(name)) {
        throw new CorruptContractException(file, "field \"" + name + "\" is missing");
      }
    }
  }

  private long integral(JsonNode root, String name) {
    JsonNode node = root.get(name);
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw new CorruptContractException(file, "field \"" + name + "\" must be an integer");
    }
    return node.longValue();
  }

  private String text(JsonNode root, String name) {
    JsonNode node = root.get(name);
    if (!node.isString()) {
      throw new CorruptContractException(file, "field \"" + name + "\" must be a string");
    }
    return node.stringValue();
  }

  private boolean flag(JsonNode root, String name) {
    JsonNode node = root.get(name);
    if (!node.isBoolean()) {
      throw new CorruptContractException(file, "field \"" + name + "\" must be true or false");
    }
    return node.booleanValue();
  }

  private Optional<Instant> optionalInstant(JsonNode root, String name) {
    return root.get(name).isNull()
        ? Optional.empty()
        : Optional.of(Instant.parse(text(root, name)));
  }

  private Map<String, String> operations(JsonNode root) {
    JsonNode node = root.get("operations");
    if (!node.isObject()) {
      throw new CorruptContractException(file, "field \"operations\" must be an object");
    }
    Map<String, String> operations = new LinkedHashMap<>();
    for (var entry : node.properties()) {
      if (!entry.getValue().isString()) {
        throw new CorruptContractException(
            file, "the reply of operation " + entry.getKey() + " must be a string");
      }
      operations.put(entry.getKey(), entry.getValue().stringValue());
    }
    return operations;
  }
}
