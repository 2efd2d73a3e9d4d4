package dev.berth.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TokensTest {

  /** RFC 6750's b64token as the grammar writes it: the oracle for the hand-written check. */
  private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");

  @Test
  void aBearerTokenIsExactlyWhatRfc6750sB64tokenAccepts() {
    List<String> cases =
        List.of(
            "",
            "=",
            "==",
            "a",
            "a=",
            "a==",
            "=a",
            "a=b",
            "A-Z_a.z~0+9/",
            "tok en",
            "tok\ten",
            "é",
            "abc\n",
            Tokens.generate(new Random(1)));
    for (String token : cases) {
      assertThat(Tokens.isBearerToken(token))
          .as(token)
          .isEqualTo(B64TOKEN.matcher(token).matches());
    }
    String alphabet = "aZ09._~+/-= \t:\"é%";
    Random random = new Random(42);
    for (int i = 0; i < 20_000; i++) {
      StringBuilder token = new StringBuilder();
      for (int n = random.nextInt(6); n >= 0; n--) {
        token.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String t = token.toString();
      assertThat(Tokens.isBearerToken(t)).as(t).isEqualTo(B64TOKEN.matcher(t).matches());
    }
  }

  @Test
  void aTokenOverTheLongestAcceptedIsRefusedBeforeItIsHashed() {
    assertThat(Tokens.isBearerToken("a".repeat(Tokens.MAX_BEARER_LENGTH))).isTrue();
    assertThat(Tokens.isBearerToken("a".repeat(Tokens.MAX_BEARER_LENGTH + 1))).isFalse();
  }
}
