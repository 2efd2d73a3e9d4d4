package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * Constants of archive format 1 and the canonical digest over its file list.
 *
 * <p>The digest is the SHA-256 (lowercase hex) of the concatenation, in archive order, of one
 * record per entry: {@code type NUL path NUL size NUL mode NUL value NUL}, where type is the
 * manifest spelling, size and mode are decimal, and value is the file's SHA-256, the symlink's
 * target, or empty for a directory. No field can contain NUL (tar names and targets cannot), so the
 * encoding is unambiguous.
 */
final class ArchiveFormat {
  static final int FORMAT = 1;
  static final String MANIFEST_NAME = "BERTH-MANIFEST.json";
  static final int ZSTD_LEVEL = 3;

  /** 8 MiB: what the decoder accepts (reliability ); level 3 frames declare at most 2 MiB. */
  static final int WINDOW_LOG_MAX = 23;

  /** Bytes of PAX or GNU long-name records one header may take before it is a header bomb. */
  static final int MAX_HEADER_BYTES = 64 * 1024;

  static final int MAX_SEGMENT_BYTES = 255;
  static final int SYMLINK_MODE = 0777;
  static final int PERMISSION_BITS = 0777;
  static final int SPECIAL_BITS = 07000;
  static final int WORLD_WRITE = 0002;

  private ArchiveFormat() {}

  static String digest(List<ManifestEntry> files) {
    MessageDigest sha = sha256();
    for (ManifestEntry e : files) {
      String value = e.sha256().or(e::target).orElse("");
      for (String field :
          List.of(
              e.type().json(),
              e.path(),
              Long.toString(e.size()),
              Integer.toString(e.mode()),
              value)) {
        sha.update(field.getBytes(UTF_8));
        sha.update((byte) 0);
      }
    }
    return hex(sha.digest());
  }

  static MessageDigest sha256() {
    return dev.berth.core.digest.Sha256.newDigest();
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  static String octal(int mode) {
    return String.format("%04o", mode);
  }
}
