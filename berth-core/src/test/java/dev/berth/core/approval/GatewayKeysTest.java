package dev.berth.core.approval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** A runtime's gateway key is a keyed digest of its name that only the installation's key makes. */
class GatewayKeysTest {
  private static final byte[] KEY = "k".repeat(32).getBytes(StandardCharsets.UTF_8);

  @Test
  void theKeyIsTheHmacOfThePrefixedRuntimeNameInBase64Url() throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
    String expected =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(
                mac.doFinal("approval-gateway:berth-abc-1".getBytes(StandardCharsets.UTF_8)));

    assertThat(new GatewayKeys(KEY).keyFor("berth-abc-1")).isEqualTo(expected).hasSize(43);
  }

  @Test
  void aKeyVerifiesForItsOwnRuntimeOnly() {
    GatewayKeys keys = new GatewayKeys(KEY);
    String key = keys.keyFor("berth-abc-1");

    assertThat(keys.verifies("berth-abc-1", key)).isTrue();
    assertThat(keys.verifies("berth-abc-2", key)).isFalse();
    assertThat(keys.verifies("berth-abc-1", key.substring(1))).isFalse();
    assertThat(keys.verifies("berth-abc-1", "")).isFalse();
  }

  @Test
  void anotherInstallationKeyMakesAnotherKey() {
    byte[] other = Arrays.copyOf(KEY, KEY.length);
    other[0] ^= 1;

    assertThat(new GatewayKeys(other).keyFor("berth-abc-1"))
        .isNotEqualTo(new GatewayKeys(KEY).keyFor("berth-abc-1"));
  }

  @Test
  void aShortKeyIsRefusedWithHowToMakeOne() {
    assertThatThrownBy(() -> new GatewayKeys(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 32 bytes")
        .hasMessageContaining("/dev/urandom");
  }

  @Test
  void itsTextHidesTheKey() {
    assertThat(new GatewayKeys(KEY).toString()).doesNotContain("kkkk");
  }
}
