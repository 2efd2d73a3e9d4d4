package dev.berth.core.tenant;

import dev.berth.core.error.InvalidValueException;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A Kubernetes ServiceAccount a tenant lists: a request whose bearer token the cluster proves was
 * issued to it acts for that tenant. Written {@code namespace/name}.
 *
 * @param namespace a DNS label (RFC 1123): 1-63 lowercase letters, digits or inner '-'
 * @param name a DNS subdomain: 1-253 lowercase letters, digits, inner '-' or '.'
 */
public record ServiceAccount(String namespace, String name) implements Comparable<ServiceAccount> {

  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final int MAX_NAME = 253;

  /** How the API server names a service account in a TokenReview's user. */
  private static final String USERNAME_PREFIX = "system:serviceaccount:";

  public ServiceAccount {
    Objects.requireNonNull(namespace, "namespace is required");
    Objects.requireNonNull(name, "name is required");
    if (!LABEL.matcher(namespace).matches()) {
      throw new InvalidValueException(
          "the namespace of service account "
              + namespace
              + "/"
              + name
              + " must be 1-63 lowercase letters, digits or inner '-', was \""
              + namespace
              + "\"");
    }
    if (name.length() > MAX_NAME || !SUBDOMAIN.matcher(name).matches()) {
      throw new InvalidValueException(
          "the name of service account "
              + namespace
              + "/"
              + name
              + " must be a DNS subdomain (1-253 lowercase letters, digits, inner '-' or '.'),"
              + " was \""
              + name
              + "\"");
    }
  }

  /**
   * The service account written {@code namespace/name}.
   *
   * @throws InvalidValueException when {@code text} is not of that form
   */
  public static ServiceAccount parse(String text) {
    Objects.requireNonNull(text, "service account is required");
    int slash = text.indexOf('/');
    if (slash < 0 || slash != text.lastIndexOf('/')) {
      throw new InvalidValueException(
          "a service account is written namespace/name, such as ci/builder, was \"" + text + "\"");
    }
    return new ServiceAccount(text.substring(0, slash), text.substring(slash + 1));
  }

  /**
   * The service account a TokenReview's {@code user.username} names, or empty when it names
   * something else (a user, a node) or is malformed.
   */
  public static Optional<ServiceAccount> fromUsername(String username) {
    if (username == null || !username.startsWith(USERNAME_PREFIX)) {
      return Optional.empty();
    }
    String[] parts = username.substring(USERNAME_PREFIX.length()).split(":", -1);
    if (parts.length != 2) {
      return Optional.empty();
    }
    try {
      return Optional.of(new ServiceAccount(parts[0], parts[1]));
    } catch (InvalidValueException e) {
      return Optional.empty();
    }
  }

  @Override
  public int compareTo(ServiceAccount other) {
    return toString().compareTo(other.toString());
  }

  /** {@code namespace/name}. */
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
