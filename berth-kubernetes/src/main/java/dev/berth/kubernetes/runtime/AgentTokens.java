package dev.berth.kubernetes.runtime;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The bearer token of each runtime's agent, derived as HMAC-SHA256 of the runtime's name under the
 * installation's token key, base64url without padding (43 characters).
 *
 * <p>Derived, not stored: a restarted control plane (or another replica) computes the token of any
 * runtime from the key alone, without reading the pod's Secret back, and no store write has to
 * happen between minting a token and creating the pod. Each runtime name carries its incarnation,
 * so every incarnation of a session has its own token, and an agent's token says nothing about any
 * other's. The cost: rotating the key changes the token of every running agent, so a key is only
 * rotated with its runtimes. The key must be kept like any credential (a Secret of the control
 * plane's own).
 */
public final class AgentTokens {
  private static final String ALGORITHM = "HmacSHA256";

  /** The shortest key accepted: HMAC-SHA256's block is 64 bytes, its output 32. */
  public static final int MIN_KEY_BYTES = 32;

  private final SecretKeySpec key;

  public AgentTokens(byte[] key) {
    if (key.length < MIN_KEY_BYTES) {
      throw new IllegalArgumentException(
          "the agent token key must have at least "
              + MIN_KEY_BYTES
              + " bytes, had "
              + key.length
              + "; generate one with e.g. `head -c 32 /dev/urandom | base64`");
    }
    this.key = new SecretKeySpec(Arrays.copyOf(key, key.length), ALGORITHM);
  }

  /** The token the agent of {@code runtimeName} expects. */
  public String tokenFor(String runtimeName) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      byte[] digest = mac.doFinal(runtimeName.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
    }
  }

  @Override
  public String toString() {
    return "AgentTokens[key hidden]";
  }
}
