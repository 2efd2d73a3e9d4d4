package dev.berth.core.digest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256, the one digest Berth uses (archive checksums, token digests, derived names and ids,
 * ETags), without each caller handling an algorithm every Java platform must provide.
 */
public final class Sha256 {

  /**
   * Copied for each digest: a provider lookup ({@code getInstance}) at every authenticated request
   * cost more than the hashing of the token itself.
   */
  private static final MessageDigest PROTOTYPE = lookUp();

  private Sha256() {}

  /** A fresh digest, for streaming. */
  public static MessageDigest newDigest() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return lookUp();
    }
  }

  private static MessageDigest lookUp() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-256", e);
    }
  }

  public static byte[] of(byte[] bytes) {
    return newDigest().digest(bytes);
  }

  /** The digest of {@code text} in UTF-8. */
  public static byte[] of(String text) {
    return of(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The first {@code bytes} bytes of the digest of {@code text} (UTF-8), in lower-case hex. */
  public static String hexPrefix(String text, int bytes) {
    return HexFormat.of().formatHex(of(text), 0, bytes);
  }

  /** The first {@code bytes} bytes of the digest of {@code data}, in lower-case hex. */
  public static String hexPrefix(byte[] data, int bytes) {
    return HexFormat.of().formatHex(of(data), 0, bytes);
  }
}
