package dev.berth.server.auth;

import java.util.HexFormat;
import java.util.random.RandomGenerator;

/** What a token looks like: generated ones, and which ones a bearer header can carry. */
final class Tokens {

  /** A generated token's entropy, in bytes (256 bits). */
  static final int RANDOM_BYTES = 32;

  /** The longest token Berth itself accepts as its own (the admin token). */
  static final int MAX_LENGTH = 1024;

  /**
   * The longest bearer token accepted at all, so that a huge header is refused before it is hashed:
   * room for a Kubernetes service account token (a JSON Web Token of one to two thousand
   * characters, more with long names).
   */
  static final int MAX_BEARER_LENGTH = 8192;

  private Tokens() {}

  /** A fresh token of 256 random bits as 64 lowercase hex characters. */
  static String generate(RandomGenerator random) {
    byte[] bytes = new byte[RANDOM_BYTES];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /**
   * Whether {@code token} can be sent as a bearer token at all: RFC 6750's {@code b64token}, {@code
   * [A-Za-z0-9._~+/-]+=*}. Checked at every request, hence a loop rather than a regex.
   */
  static boolean isBearerToken(String token) {
    if (token.isEmpty() || token.length() > MAX_BEARER_LENGTH) {
      return false;
    }
    int end = token.length();
    while (end > 0 && token.charAt(end - 1) == '=') {
      end--;
    }
    if (end == 0) {
      return false;
    }
    for (int i = 0; i < end; i++) {
      if (!isTokenChar(token.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code token} has the form of a JSON Web Token (three base64url parts separated by
   * dots), as a Kubernetes service account token does. Only such tokens are worth a TokenReview:
   * Berth's own are hex and never leave the server.
   */
  static boolean looksLikeJwt(String token) {
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || !part.chars().allMatch(Tokens::isBase64UrlChar)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isBase64UrlChar(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_';
  }

  private static boolean isTokenChar(char c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '.'
        || c == '_'
        || c == '~'
        || c == '+'
        || c == '/'
        || c == '-';
  }
}
