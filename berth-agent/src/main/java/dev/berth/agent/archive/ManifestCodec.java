package dev.berth.agent.archive;

import dev.berth.protocol.json.AgentJson;
import java.io.ByteArrayOutputStream;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The manifest as JSON: {@code {"format":1,"session":…,"generation":N,"createdAt":"<ISO
 * instant>","files":[{"path","type":"file|dir|symlink","size","mode":"0644","sha256"?,
 * "target"?}],"totalBytes":N,"digest":"<hex>"}}. Written field by field in that order; read
 * strictly: a missing, unknown, duplicated or mistyped field is {@link Violation#BAD_MANIFEST}.
 */
final class ManifestCodec {
  private static final JsonMapper MAPPER = AgentJson.mapper();
  private static final Set<String> TOP =
      Set.of("format", "session", "generation", "createdAt", "files", "totalBytes", "digest");
  private static final Set<String> FILE_FIELDS =
      Set.of("path", "type", "size", "mode", "sha256", "target");
  private static final Pattern MODE = Pattern.compile("0[0-7]{3}");
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  private ManifestCodec() {}

  static byte[] write(Manifest m) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonGenerator g = MAPPER.createGenerator(bytes)) {
      g.writeStartObject();
      g.writeNumberProperty("format", m.format());
      g.writeStringProperty("session", m.session());
      g.writeNumberProperty("generation", m.generation());
      g.writeStringProperty("createdAt", m.createdAt().toString());
      g.writeArrayPropertyStart("files");
      for (ManifestEntry e : m.files()) {
        writeEntry(g, e);
      }
      g.writeEndArray();
      g.writeNumberProperty("totalBytes", m.totalBytes());
      g.writeStringProperty("digest", m.digest());
      g.writeEndObject();
    }
    return bytes.toByteArray();
  }

  private static void writeEntry(JsonGenerator g, ManifestEntry e) {
    g.writeStartObject();
    g.writeStringProperty("path", e.path());
    g.writeStringProperty("type", e.type().json());
    g.writeNumberProperty("size", e.size());
    g.writeStringProperty("mode", ArchiveFormat.octal(e.mode()));
    if (e.sha256().isPresent()) {
      g.writeStringProperty("sha256", e.sha256().get());
    }
    if (e.target().isPresent()) {
      g.writeStringProperty("target", e.target().get());
    }
    g.writeEndObject();
  }

  /** Parses a manifest; its consistency with the archive is checked elsewhere. */
  static Manifest read(byte[] json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JacksonException e) {
      throw bad("the manifest is not valid JSON: " + e.getOriginalMessage(), e);
    }
    fields(root, TOP, "the manifest");
    List<ManifestEntry> files = new ArrayList<>();
    JsonNode list = root.get("files");
    if (!list.isArray()) {
      throw bad("the manifest's files is not an array", null);
    }
    for (JsonNode f : list) {
      files.add(entry(f));
    }
    return new Manifest(
        integer(root, "format"),
        text(root, "session"),
        number(root, "generation"),
        instant(text(root, "createdAt")),
        files,
        number(root, "totalBytes"),
        text(root, "digest"));
  }

  private static ManifestEntry entry(JsonNode f) {
    fields(f, FILE_FIELDS, "a manifest file");
    String path = text(f, "path");
    EntryType type = type(text(f, "type"));
    String mode = text(f, "mode");
    if (!MODE.matcher(mode).matches()) {
      throw bad("the mode of \"" + path + "\" is not four octal digits: " + mode, null);
    }
    Optional<String> sha = optionalText(f, "sha256");
    Optional<String> target = optionalText(f, "target");
    if (sha.isPresent() != (type == EntryType.FILE)
        || target.isPresent() != (type == EntryType.SYMLINK)
        || sha.filter(s -> !SHA256.matcher(s).matches()).isPresent()) {
      throw bad(
          "\""
              + path
              + "\" needs sha256 (64 hex digits) if and only if it is a file,"
              + " and target if and only if it is a symlink",
          null);
    }
    return new ManifestEntry(path, type, number(f, "size"), Integer.parseInt(mode, 8), sha, target);
  }

  private static void fields(JsonNode node, Set<String> allowed, String what) {
    if (!node.isObject()) {
      throw bad(what + " is not a JSON object", null);
    }
    for (String name : node.propertyNames()) {
      if (!allowed.contains(name)) {
        throw bad(what + " has the unknown field \"" + name + "\"", null);
      }
    }
  }

  private static String text(JsonNode node, String field) {
    return optionalText(node, field)
        .orElseThrow(() -> bad("missing field \"" + field + "\"", null));
  }

  private static Optional<String> optionalText(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null) {
      return Optional.empty();
    }
    if (!v.isString()) {
      throw bad("field \"" + field + "\" is not a string", null);
    }
    return Optional.of(v.asString());
  }

  private static long number(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
      throw bad("field \"" + field + "\" is not a non-negative integer", null);
    }
    return v.asLong();
  }

  private static int integer(JsonNode node, String field) {
    long v = number(node, field);
    if (v > Integer.MAX_VALUE) {
      throw bad("field \"" + field + "\" is too large", null);
    }
    return (int) v;
  }

  private static EntryType type(String json) {
    for (EntryType t : EntryType.values()) {
      if (t.json().equals(json)) {
        return t;
      }
    }
    throw bad("unknown entry type \"" + json + "\"", null);
  }

  private static Instant instant(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeException e) {
      throw bad("createdAt is not an ISO-8601 instant: " + text, e);
    }
  }

  private static ArchiveException bad(String detail, @Nullable Throwable cause) {
    return ArchiveException.of(
        Violation.BAD_MANIFEST, -1, ArchiveFormat.MANIFEST_NAME, detail, cause);
  }
}
