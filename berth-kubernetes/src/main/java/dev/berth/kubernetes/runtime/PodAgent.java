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
 */
public record PodAgent(String cli, String model, List<Plugin> plugins, Provider provider) {

  public PodAgent {
    Objects.requireNonNull(cli, "cli");
    Objects.requireNonNull(model, "model");
    plugins = List.copyOf(plugins);
    Objects.requireNonNull(provider, "provider");
    if (!cli.startsWith("/")) {
      throw new IllegalArgumentException(
          "an agent CLI in the image must be an absolute path, was \"" + cli + "\"");
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
