package dev.berth.kubernetes.runtime;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What an agent session's pod runs beside {@code berth agent}: the CLI in the agent image, the
 * model, the plugins, and the provider its credential proxy sidecar forwards to, whose token the
 * sidecar alone takes from an operator-made Secret. The control plane never holds that token: it
 * names the Secret, and the kubelet resolves it into the sidecar's environment.
 *
 * @param cli the CLI's absolute path in the agent image
 * @param model the model every prompt asks for ({@code platform-default} for the CLI's own)
 * @param plugins the session's marketplace plugins, each with its absolute path in the image
 * @param provider where the sidecar forwards, and the Secret holding its token
 * @param gate the approval gate of the session's tool calls; empty when its policy is off
 */
public record PodAgent(
    String cli, String model, List<Plugin> plugins, Provider provider, Optional<Gate> gate) {

  public PodAgent {
    Objects.requireNonNull(cli, "cli");
    Objects.requireNonNull(model, "model");
    plugins = List.copyOf(plugins);
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(gate, "gate");
    if (!cli.startsWith("/")) {
      throw new IllegalArgumentException(
          "an agent CLI in the image must be an absolute path, was \"" + cli + "\"");
    }
  }

  /** An agent whose tool calls are not gated. */
  public PodAgent(String cli, String model, List<Plugin> plugins, Provider provider) {
    this(cli, model, plugins, provider, Optional.empty());
  }

  /** This agent with {@code gate}. */
  public PodAgent withGate(Optional<Gate> gate) {
    return new PodAgent(cli, model, plugins, provider, gate);
  }

  /**
   * The approval gate the proxy sidecar enforces: what {@code berth proxy} reads from its {@code
   * BERTH_PROXY_APPROVAL_*} and {@code BERTH_PROXY_GATEWAY_*} variables. The key goes into the
   * runtime's own Secret (beside the agent's token) and reaches the proxy container alone, through
   * a secretKeyRef: it is never a plain value of the pod spec.
   *
   * @param policy {@code external} or {@code all} (a policy {@code off} is no gate)
   * @param gateway the control plane's gateway as the pod reaches it ({@code <base>/gateway})
   * @param key the session runtime's gateway key ({@code x-api-key})
   * @param timeoutSeconds how long the proxy holds a call for a decision
   * @param controlPlanePort the control plane pods' port the gateway answers on, which the
   *     session's NetworkPolicy opens to the pod
   */
  public record Gate(
      String policy, String gateway, String key, long timeoutSeconds, int controlPlanePort) {
    public Gate {
      Objects.requireNonNull(policy, "policy");
      Objects.requireNonNull(gateway, "gateway");
      Objects.requireNonNull(key, "key");
      if (timeoutSeconds < 1) {
        throw new IllegalArgumentException(
            "an approval timeout must be at least 1 second, was " + timeoutSeconds);
      }
      if (controlPlanePort < 1 || controlPlanePort > 65535) {
        throw new IllegalArgumentException(
            "the control plane's port must be 1..65535, was " + controlPlanePort);
      }
    }

    @Override
    public String toString() {
      return "Gate[policy="
          + policy
          + ", gateway="
          + gateway
          + ", key=(hidden), timeoutSeconds="
          + timeoutSeconds
          + ", controlPlanePort="
          + controlPlanePort
          + "]";
    }
  }

  /** A marketplace plugin: its name, and its absolute path in the agent image. */
  public record Plugin(String name, String path) {
    public Plugin {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(path, "path");
    }
  }

  /**
   * The upstream of the session's credential proxy sidecar.
   *
   * @param baseUrl the provider's https base URL
   * @param api {@code anthropic} or {@code openai}
   * @param authHeader the header the token goes in; empty for the API family's usual one
   * @param caFile a CA certificate (PEM) in the image the upstream is also checked against
   * @param token the Secret (in the sessions' namespace) and key holding the provider's token
   * @param egressCidrs the provider's address ranges, as the operator gave them; empty to resolve
   *     the URL's host when the pod's NetworkPolicy is made
   */
  public record Provider(
      String baseUrl,
      String api,
      Optional<String> authHeader,
      Optional<String> caFile,
      SecretRef token,
      List<String> egressCidrs) {
    public Provider {
      Objects.requireNonNull(baseUrl, "baseUrl");
      Objects.requireNonNull(api, "api");
      Objects.requireNonNull(authHeader, "authHeader");
      Objects.requireNonNull(caFile, "caFile");
      Objects.requireNonNull(token, "token");
      egressCidrs = EgressCidrs.check(egressCidrs);
    }

    /** A provider whose addresses are its host's, resolved when the pod's policy is made. */
    public Provider(
        String baseUrl,
        String api,
        Optional<String> authHeader,
        Optional<String> caFile,
        SecretRef token) {
      this(baseUrl, api, authHeader, caFile, token, List.of());
    }
  }

  /**
   * A key of a Secret in the sessions' namespace, written {@code name/key} in configuration.
   *
   * @param name a DNS subdomain name, e.g. {@code berth-provider-claude-code}
   * @param key a Secret data key, e.g. {@code token}
   */
  public record SecretRef(String name, String key) {
    private static final Pattern NAME =
        Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern KEY = Pattern.compile("[-._a-zA-Z0-9]+");

    public SecretRef {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(key, "key");
      if (name.length() > 253 || !NAME.matcher(name).matches() || !KEY.matcher(key).matches()) {
        throw new IllegalArgumentException(
            "a Secret reference is name/key, a Secret's DNS name (lowercase letters, digits, '-',"
                + " '.') and one of its data keys (letters, digits, '-', '_', '.'), was \""
                + name
                + "/"
                + key
                + "\"");
      }
    }

    /** Reads {@code name/key}. */
    public static SecretRef parse(String written) {
      int slash = written.indexOf('/');
      if (slash <= 0 || slash != written.lastIndexOf('/')) {
        throw new IllegalArgumentException(
            "a Secret reference is written name/key, e.g. berth-provider-claude-code/token, was \""
                + written
                + "\"");
      }
      return new SecretRef(written.substring(0, slash), written.substring(slash + 1));
    }

    @Override
    public String toString() {
      return name + "/" + key;
    }
  }
}
