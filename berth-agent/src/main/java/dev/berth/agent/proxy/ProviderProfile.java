package dev.berth.agent.proxy;

import dev.berth.core.error.InvalidValueException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A model provider as the operator configured it: the {@code https} origin (and optional base path)
 * requests go to, the token the proxy adds, an optional CA certificate (PEM) to trust besides the
 * system's, the API family (which request headers may pass), the header the token goes in and every
 * other secret that output must never show.
 */
public record ProviderProfile(
    String name,
    URI upstream,
    String token,
    Optional<Path> caCertificate,
    Api api,
    List<String> otherSecrets,
    AuthHeader authHeader) {

  /** The request headers a CLI may send its provider; all others are dropped. */
  public enum Api {
    /** Anthropic's Messages API (Claude Code, MiniMax's Anthropic-compatible endpoint). */
    ANTHROPIC,
    /** OpenAI's Responses API (Codex). */
    OPENAI;

    /** Whether a request header of this name may pass (names are case-insensitive). */
    public boolean allows(String header) {
      String name = header.toLowerCase(Locale.ROOT);
      return switch (this) {
        case ANTHROPIC -> Allowlists.ANTHROPIC.contains(name);
        case OPENAI -> Allowlists.OPENAI.contains(name);
      };
    }
  }

  /** The request headers each API's CLIs send that may reach the provider. */
  private static final class Allowlists {
    static final Set<String> ANTHROPIC =
        Set.of(
            "accept",
            "content-type",
            "anthropic-version",
            "anthropic-beta",
            "anthropic-dangerous-direct-browser-access",
            "user-agent",
            "x-app",
            "x-client-request-id",
            "x-claude-code-session-id",
            "x-claude-code-agent-id",
            "x-claude-code-parent-agent-id",
            "x-stainless-arch",
            "x-stainless-helper-method",
            "x-stainless-lang",
            "x-stainless-os",
            "x-stainless-package-version",
            "x-stainless-read-timeout",
            "x-stainless-retry-count",
            "x-stainless-runtime",
            "x-stainless-runtime-version",
            "x-stainless-timeout");
    static final Set<String> OPENAI =
        Set.of(
            "accept",
            "content-type",
            "user-agent",
            "openai-beta",
            "originator",
            "version",
            "session-id",
            "thread-id",
            "x-client-request-id",
            "x-codex-beta-features",
            "x-codex-turn-metadata",
            "x-codex-window-id",
            "x-openai-internal-codex-responses-lite");
  }

  /**
   * A profile whose token goes in its API family's usual header ({@link AuthHeader#defaultFor}).
   */
  public ProviderProfile(
      String name,
      URI upstream,
      String token,
      Optional<Path> caCertificate,
      Api api,
      List<String> otherSecrets) {
    this(name, upstream, token, caCertificate, api, otherSecrets, AuthHeader.defaultFor(api));
  }

  public ProviderProfile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(authHeader, "authHeader");
    Objects.requireNonNull(upstream, "upstream");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(caCertificate, "caCertificate");
    Objects.requireNonNull(api, "api");
    otherSecrets = List.copyOf(otherSecrets);
    checkUpstream(name, upstream);
    if (token.isEmpty() || token.indexOf('\r') >= 0 || token.indexOf('\n') >= 0) {
      throw new InvalidValueException(
          "provider "
              + name
              + ": the token must be non-empty and on one line; check the profile's token file");
    }
  }

  /** The literals output must never show: the token and the profile's other secrets. */
  public List<String> secrets() {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(token), otherSecrets.stream())
        .toList();
  }

  @Override
  public String toString() {
    // Never the token: profiles end up in log lines and exception messages.
    return "ProviderProfile["
        + name
        + " -> "
        + upstream
        + ", "
        + api
        + ", "
        + authHeader.name()
        + "]";
  }

  private static void checkUpstream(String name, URI upstream) {
    String problem = null;
    if (!"https".equals(upstream.getScheme())) {
      problem = "must be https";
    } else if (upstream.getHost() == null || upstream.getHost().isEmpty()) {
      problem = "must name a host";
    } else if (upstream.getRawUserInfo() != null) {
      problem = "must not carry credentials (user info)";
    } else if (upstream.getRawQuery() != null || upstream.getRawFragment() != null) {
      problem = "must have no query or fragment";
    }
    if (problem != null) {
      throw new InvalidValueException(
          "provider "
              + name
              + ": the upstream "
              + problem
              + ", was \""
              + upstream.getScheme()
              + "://"
              + upstream.getHost()
              + "…\"; give an absolute https origin with an optional base path");
    }
  }
}
