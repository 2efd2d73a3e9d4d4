package dev.berth.server;

import dev.berth.core.error.InvalidValueException;
import java.util.Objects;
import java.util.Optional;

/**
 * Where sessions run ({@code --runtime}): each as a sandboxed process tree under this machine's
 * node, the default; or each in a pod of its own on Kubernetes, which every replica reaches.
 */
public sealed interface RuntimeChoice {

  /** {@code local}: the node this server starts on its own machine. */
  record Local() implements RuntimeChoice {}

  /**
   * {@code kubernetes}: a pod per session incarnation.
   *
   * @param namespace where the session pods live; empty for this pod's own namespace (read from its
   *     service account), else {@code default}
   * @param image the agent image (it holds the {@code berth} command, bash and the agent CLIs)
   * @param serviceAccount the session pods' service account; its token is never mounted
   * @param tokenKey the key the agents' tokens are derived from, the same for every replica
   */
  record Kubernetes(
      Optional<String> namespace, String image, Optional<String> serviceAccount, byte[] tokenKey)
      implements RuntimeChoice {
    public Kubernetes {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(image, "image");
      Objects.requireNonNull(serviceAccount, "serviceAccount");
      tokenKey = tokenKey.clone();
    }

    @Override
    public byte[] tokenKey() {
      return tokenKey.clone();
    }

    @Override
    public String toString() {
      return "Kubernetes[namespace="
          + namespace
          + ", image="
          + image
          + ", serviceAccount="
          + serviceAccount
          + ", tokenKey=(hidden)]";
    }
  }

  /** The environment variable holding the agents' token key (base64, at least 32 bytes). */
  String TOKEN_KEY_VARIABLE = "BERTH_AGENT_TOKEN_KEY";

  /**
   * Reads {@code --runtime} and its companions.
   *
   * @throws InvalidValueException naming the flag, what it must be and what to write instead
   */
  static RuntimeChoice parse(
      String runtime,
      Optional<String> namespace,
      Optional<String> image,
      Optional<String> serviceAccount,
      java.util.Map<String, String> environment) {
    return switch (runtime) {
      case "local" -> new Local();
      case "kubernetes" ->
          new Kubernetes(
              namespace,
              image.orElseThrow(
                  () ->
                      new InvalidValueException(
                          "--runtime kubernetes needs --agent-image: the image session pods run"
                              + " (it holds the berth command), e.g. ghcr.io/example/berth-agent:0.1")),
              serviceAccount,
              tokenKey(environment));
      default ->
          throw new InvalidValueException(
              "--runtime must be local (a sandboxed process tree per session on this machine, the"
                  + " default) or kubernetes (a pod per session), was \""
                  + runtime
                  + "\"");
    };
  }

  private static byte[] tokenKey(java.util.Map<String, String> environment) {
    String encoded = environment.get(TOKEN_KEY_VARIABLE);
    String generate = "generate one with: head -c 32 /dev/urandom | base64";
    if (encoded == null || encoded.isBlank()) {
      throw new InvalidValueException(
          "--runtime kubernetes needs "
              + TOKEN_KEY_VARIABLE
              + ", the key every replica derives the session agents' tokens from (base64, at least"
              + " 32 bytes, the same for every replica); "
              + generate);
    }
    byte[] key;
    try {
      key = java.util.Base64.getDecoder().decode(encoded.strip());
    } catch (IllegalArgumentException e) {
      throw new InvalidValueException(
          TOKEN_KEY_VARIABLE + " must be base64 (at least 32 bytes), was not; " + generate);
    }
    if (key.length < 32) {
      throw new InvalidValueException(
          TOKEN_KEY_VARIABLE
              + " must hold at least 32 bytes, held "
              + key.length
              + "; "
              + generate);
    }
    return key;
  }
}
