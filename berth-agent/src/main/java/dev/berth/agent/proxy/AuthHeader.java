package dev.berth.agent.proxy;

import dev.berth.core.error.InvalidValueException;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The request header that carries a provider's token: {@code Authorization: Bearer <token>}, or the
 * token alone as the value of a header of another name ({@code x-api-key: <token>}, which
 * Anthropic's API keys go in; {@code api-key} for Azure OpenAI).
 *
 * @param name the header's name, as configured (names are case-insensitive)
 */
public record AuthHeader(String name) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,63}");

  /** Headers the proxy or HTTP itself sets: a token there would be lost or break the exchange. */
  private static final Set<String> RESERVED =
      Set.of(
          "accept-encoding",
          "connection",
          "content-encoding",
          "content-length",
          "content-type",
          "expect",
          "host",
          "keep-alive",
          "proxy-authorization",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  // After NAME and RESERVED: static fields are set in order.
  /** {@code Authorization: Bearer <token>}: OpenAI, and gateways on either API. */
  public static final AuthHeader BEARER = new AuthHeader("Authorization");

  /** {@code x-api-key: <token>}: Anthropic's standard API keys. */
  public static final AuthHeader X_API_KEY = new AuthHeader("x-api-key");

  public AuthHeader {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches() || RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
      throw new InvalidValueException(
          "invalid input: a provider's auth header must be a header name (letters, digits, -)"
              + " other than "
              + RESERVED
              + ", was \""
              + name
              + "\"; use authorization (Bearer) or x-api-key");
    }
  }

  /** The default of an API family: {@code x-api-key} for Anthropic's, Bearer for OpenAI's. */
  public static AuthHeader defaultFor(ProviderProfile.Api api) {
    return switch (api) {
      case ANTHROPIC -> X_API_KEY;
      case OPENAI -> BEARER;
    };
  }

  /** Whether the token goes as {@code Authorization: Bearer <token>}. */
  public boolean bearer() {
    return name.equalsIgnoreCase("authorization");
  }

  /** The header's value for {@code token}. */
  String value(String token) {
    return bearer() ? "Bearer " + token : token;
  }
}
