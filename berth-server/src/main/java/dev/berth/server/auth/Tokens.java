package dev.berth.server.auth;

import java.util.HexFormat;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/** What a token looks like: generated ones, and which ones a bearer header can carry. */
final class Tokens {

  /** A generated token's entropy, in bytes (256 bits). */
  static final int RANDOM_BYTES = 32;

  /** The longest token accepted, so that a huge header is refused before it is hashed. */
  static final int MAX_LENGTH = 1024;

  /** RFC 6750's {@code b64token}: what may follow {@code Bearer } in a header. */
  static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");

  private Tokens() {}

  /** A fresh token of 256 random bits as 64 lowercase hex characters. */
  static String generate(RandomGenerator random) {
    byte[] bytes = new byte[RANDOM_BYTES];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Whether {@code token} can be sent as a bearer token at all. */
  static boolean isBearerToken(String token) {
    return token.length() <= MAX_LENGTH && B64TOKEN.matcher(token).matches();
  }
}
