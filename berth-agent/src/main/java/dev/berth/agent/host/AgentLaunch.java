package dev.berth.agent.host;

import dev.berth.agent.agentcli.AgentAdapter;
import dev.berth.agent.agentcli.ClaudeCodeAdapter;
import dev.berth.agent.agentcli.CodexAdapter;
import dev.berth.agent.proxy.AuthHeader;
import dev.berth.agent.proxy.ProviderProfile;
import dev.berth.agent.proxy.gate.GateSettings;
import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.error.InvalidValueException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What an agent runtime needs beside its type, sent by the control plane with each provision (its
 * configuration, not the tenant's): the CLI to run and the provider its credential proxy reaches.
 * Held in memory only — never in {@code runtime.json} — so the provider's token never lands on the
 * runtime's disk; a restarted host reports the runtime stopped, and a resume provisions anew.
 *
 * @param cli the CLI's path on this host
 * @param model the model every prompt asks for: a concrete one, or {@code platform-default} (the
 *     CLI gets no {@code --model}); the control plane resolves the installation's default into it
 * @param provider the one upstream the session's credential proxy forwards to
 */
public record AgentLaunch(
    String cli,
    String model,
    Provider provider,
    List<Plugin> plugins,
    @Nullable Approval approval) {

  /**
   * The session's approval gate, when its policy gates anything: the policy ({@code external} or
   * {@code all}), the gateway its credential proxy asks (the control plane's), the key naming the
   * session to it, and how long a call waits for a decision.
   */
  public record Approval(String policy, String gateway, String key, long timeoutSeconds) {
    public Approval {
      Objects.requireNonNull(policy, "policy");
      Objects.requireNonNull(gateway, "gateway");
      Objects.requireNonNull(key, "key");
    }

    @Override
    public String toString() {
      return "Approval[" + policy + " via " + gateway + "]"; // never the key
    }

    /** The proxy's settings; none when the policy is {@code off}. */
    public Optional<GateSettings> settings() {
      ApprovalPolicy parsed = ApprovalPolicy.parse(policy);
      if (parsed == ApprovalPolicy.OFF) {
        return Optional.empty();
      }
      return Optional.of(
          new GateSettings(parsed, URI.create(gateway), key, Duration.ofSeconds(timeoutSeconds)));
    }
  }

  public AgentLaunch(String cli, String model, Provider provider, List<Plugin> plugins) {
    this(cli, model, provider, plugins, null);
  }

  /** A marketplace plugin of the session: its name, and where on this host to copy it from. */
  public record Plugin(String name, String path) {
    public Plugin {
      new dev.berth.core.session.PluginName(name);
      if (!Path.of(path).isAbsolute()) {
        throw new InvalidValueException(
            "invalid input: agent.plugins[].path must be an absolute path on the node, was \""
                + path
                + "\"");
      }
    }
  }

  public AgentLaunch(String cli, String model, Provider provider) {
    this(cli, model, provider, List.of());
  }

  public AgentLaunch {
    Objects.requireNonNull(cli, "cli");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(provider, "provider");
    // A control plane from before plugins sends none (Jackson passes null).
    plugins = List.copyOf(Objects.requireNonNullElse(plugins, List.of()));
    new dev.berth.core.session.AgentModel(model);
    if (!Path.of(cli).isAbsolute()) {
      throw new InvalidValueException(
          "invalid input: agent.cli must be an absolute path on the node, was \"" + cli + "\"");
    }
  }

  /**
   * @param api {@code anthropic} or {@code openai}: which request headers the proxy lets through
   * @param caFile a CA certificate (PEM) the upstream's certificate is checked against besides the
   *     system's, as a path on this host
   * @param secrets further literals output must never show (the token is always one)
   * @param authHeader the header the token goes in: {@code authorization} (as {@code Bearer}) or
   *     another name ({@code x-api-key}); none for the API family's usual one
   */
  public record Provider(
      String name,
      String baseUrl,
      String token,
      String api,
      @Nullable String caFile,
      @Nullable List<String> secrets,
      @Nullable String authHeader) {

    public Provider(
        String name,
        String baseUrl,
        String token,
        String api,
        @Nullable String caFile,
        @Nullable List<String> secrets) {
      this(name, baseUrl, token, api, caFile, secrets, null);
    }

    @Override
    public String toString() {
      // Never the token: requests end up in log lines and exception messages.
      return "Provider[" + name + " -> " + baseUrl + ", " + api + "]";
    }

    ProviderProfile profile() {
      ProviderProfile.Api family =
          switch (api) {
            case "anthropic" -> ProviderProfile.Api.ANTHROPIC;
            case "openai" -> ProviderProfile.Api.OPENAI;
            default ->
                throw new InvalidValueException(
                    "invalid input: agent.provider.api must be anthropic or openai, was \""
                        + api
                        + "\"");
          };
      return new ProviderProfile(
          name,
          URI.create(baseUrl),
          token,
          Optional.ofNullable(caFile).map(Path::of),
          family,
          secrets == null ? List.of() : secrets,
          authHeader == null ? AuthHeader.defaultFor(family) : new AuthHeader(authHeader));
    }
  }

  /**
   * This launch without the provider's token and the gateway key: what the node keeps once the
   * session's proxy process has them.
   */
  AgentLaunch withoutCredentials() {
    Provider p = provider;
    Provider kept =
        new Provider(p.name(), p.baseUrl(), "", p.api(), p.caFile(), null, p.authHeader());
    Approval gate =
        approval == null
            ? null
            : new Approval(approval.policy(), approval.gateway(), "", approval.timeoutSeconds());
    return new AgentLaunch(cli, model, kept, plugins, gate);
  }

  /** Whether the credentials were handed on ({@link #withoutCredentials}). */
  boolean spent() {
    return provider.token().isEmpty();
  }

  /** The launch of the session's proxy process: everything it needs, the token included. */
  dev.berth.agent.proxy.ProxyLaunch proxyLaunch(
      dev.berth.core.session.SessionId session, Path socket) {
    Provider p = provider;
    return new dev.berth.agent.proxy.ProxyLaunch(
        session.value(),
        "unix:" + socket.toAbsolutePath(),
        new dev.berth.agent.proxy.ProxyLaunch.Provider(
            p.name(), p.baseUrl(), p.token(), p.api(), p.caFile(), p.secrets(), p.authHeader()),
        approval == null
            ? null
            : new dev.berth.agent.proxy.ProxyLaunch.Approval(
                approval.policy(), approval.gateway(), approval.key(), approval.timeoutSeconds()));
  }

  /** The model to ask for in each turn: none for the platform default. */
  Optional<String> turnModel() {
    return new dev.berth.core.session.AgentModel(model).concrete();
  }

  /** The adapter of an agent workload type, if Berth has one. */
  static Optional<AgentAdapter> adapter(String workload) {
    return switch (workload) {
      case "claude-code" -> Optional.of(ClaudeCodeAdapter.claudeCode());
      case "minimax-code" -> Optional.of(ClaudeCodeAdapter.minimaxCode());
      case "codex" -> Optional.of(new CodexAdapter());
      default -> Optional.empty();
    };
  }
}
