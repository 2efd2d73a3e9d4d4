package dev.berth.core.tenant;

import dev.berth.core.error.InvalidValueException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The SHA-256 digest of an API token, as 64 lowercase hex characters: what is stored in place of
 * the token. Tokens are 256 random bits, so a fast hash is enough; a slow password hash would only
 * slow down every request.
 */
public record TokenDigest(String hex) {
  public TokenDigest {
    Objects.requireNonNull(hex, "token digest is required");
    if (!isLowerHex64(hex)) {
      throw new InvalidValueException(
          "token digest must be 64 lowercase hex characters (SHA-256), was \"" + hex + "\"");
    }
  }

  /** The digest of the clear token {@code token} (its UTF-8 bytes). */
  public static TokenDigest of(String token) {
    Objects.requireNonNull(token, "token is required");
    return new TokenDigest(HexFormat.of().formatHex(sha256(token)));
  }

  /** The raw 32 bytes, for constant-time comparison with {@link MessageDigest#isEqual}. */
  public byte[] bytes() {
    return HexFormat.of().parseHex(hex);
  }

  // Every authenticated request builds one: a loop, where a regex cost a few percent of a request.
  private static boolean isLowerHex64(String hex) {
    if (hex.length() != 64) {
      return false;
    }
    for (int i = 0; i < hex.length(); i++) {
      char c = hex.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static byte[] sha256(String token) {
    return dev.berth.core.digest.Sha256.of(token);
  }
}
