package dev.berth.kubernetes.runtime;

import io.fabric8.kubernetes.api.model.Secret;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Checks an agent session's provider before its pod is made: the profile (an https URL, a known
 * API) and the operator's Secret holding the token (it exists and has a non-empty value under the
 * key). A pod made without them would wait for ever in {@code CreateContainerConfigError} or have
 * its proxy crash; the session fails at once with CREDENTIAL_REFERENCE instead, naming what to
 * create.
 *
 * <p>Reading the Secret is the one read of a Secret the control plane makes, and the value is
 * looked at for emptiness only, then dropped: the control plane neither keeps nor passes on the
 * token (the kubelet gives it to the proxy container).
 */
final class ProviderSecrets {

  private ProviderSecrets() {}

  /**
   * What keeps {@code agent}'s proxy from starting; empty when nothing does.
   *
   * @param read reads a Secret of the sessions' namespace by name (null when it does not exist)
   */
  static Optional<String> problem(
      PodAgent agent, String namespace, Function<String, @Nullable Secret> read) {
    PodAgent.Provider provider = agent.provider();
    Optional<String> profile = profileProblem(provider);
    if (profile.isPresent()) {
      return profile;
    }
    PodAgent.SecretRef ref = provider.token();
    Secret secret = read.apply(ref.name());
    String create =
        "; create it with: kubectl -n "
            + namespace
            + " create secret generic "
            + ref.name()
            + " --from-file="
            + ref.key()
            + "=PATH_TO_TOKEN_FILE";
    if (secret == null) {
      return Optional.of(
          "the provider Secret " + namespace + "/" + ref.name() + " does not exist" + create);
    }
    if (!holds(secret.getData(), ref.key()) && !holds(secret.getStringData(), ref.key())) {
      return Optional.of(
          "the provider Secret "
              + namespace
              + "/"
              + ref.name()
              + " has no non-empty key "
              + ref.key()
              + create);
    }
    return Optional.empty();
  }

  private static boolean holds(@Nullable Map<String, String> data, String key) {
    return data != null && !Objects.requireNonNullElse(data.get(key), "").isEmpty();
  }

  private static Optional<String> profileProblem(PodAgent.Provider provider) {
    if (!provider.api().equals("anthropic") && !provider.api().equals("openai")) {
      return Optional.of(
          "the provider's api must be anthropic or openai, was \"" + provider.api() + "\"");
    }
    try {
      URI url = new URI(provider.baseUrl());
      if (!"https".equals(url.getScheme()) || url.getHost() == null || url.getUserInfo() != null) {
        return Optional.of(
            "the provider's URL must be https://host[:port][/path] without user, was "
                + provider.baseUrl());
      }
    } catch (URISyntaxException e) {
      return Optional.of("the provider's URL does not parse: " + e.getMessage());
    }
    return Optional.empty();
  }
}
