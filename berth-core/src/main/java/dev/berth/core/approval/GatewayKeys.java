package dev.berth.core.approval;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The approval gateway key of each session runtime: HMAC-SHA256 of {@code "approval-gateway:" +
 * runtimeName} under the installation's key, base64url without padding (43 characters).
 *
 * <p>Derived, not stored (as the agents' tokens): any replica verifies a proxy's key without a
 * store read, and each incarnation of a session gets its own key because the runtime name carries
 * the incarnation. The prefix keeps these keys apart from any other HMAC made under the same key
 * (the agents' tokens are HMACs of the bare runtime name), so one never passes for the other.
 */
public final class GatewayKeys {
  private static final String ALGORITHM = "HmacSHA256";
  private static final String PREFIX = "approval-gateway:";

  /** The shortest key accepted: HMAC-SHA256's output is 32 bytes. */
  public static final int MIN_KEY_BYTES = 32;

  private final SecretKeySpec key;

  public GatewayKeys(byte[] key) {
    if (key.length < MIN_KEY_BYTES) {
      throw new IllegalArgumentException(
          "the approval gateway key must have at least "
              + MIN_KEY_BYTES
              + " bytes, had "
              + key.length
              + "; generate one with e.g. `head -c 32 /dev/urandom | base64`");
    }
    this.key = new SecretKeySpec(Arrays.copyOf(key, key.length), ALGORITHM);
  }

  /** The key the proxy of {@code runtimeName} presents in {@code x-api-key}. */
  public String keyFor(String runtimeName) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      byte[] digest = mac.doFinal((PREFIX + runtimeName).getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
    }
  }

  /** Whether {@code presented} is the key of {@code runtimeName}, compared in constant time. */
  public boolean verifies(String runtimeName, String presented) {
    return MessageDigest.isEqual(
        keyFor(runtimeName).getBytes(StandardCharsets.UTF_8),
        presented.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "GatewayKeys[key hidden]";
  }
}
