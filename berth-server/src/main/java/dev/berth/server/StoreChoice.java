package dev.berth.server;

import dev.berth.core.error.InvalidValueException;
import dev.berth.server.store.sql.PostgresLocation;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where the control plane keeps its records ({@code --store}): SQLite in the data directory, the
 * embedded default for one server; a PostgreSQL database that any number of replicas share; or
 * ConfigMaps and Leases in a Kubernetes namespace, which any number of replicas share too.
 */
public sealed interface StoreChoice {

  /** The scheme of a Kubernetes namespace's store. */
  String KUBERNETES = "kubernetes://";

  /** {@code berth.db} in the data directory; one server at a time. */
  record Sqlite() implements StoreChoice {}

  /** A PostgreSQL database, shared by every replica given the same location. */
  record Postgres(PostgresLocation location) implements StoreChoice {
    public Postgres {
      Objects.requireNonNull(location, "location");
    }
  }

  /**
   * ConfigMaps and Leases in {@code namespace}, through the API server the Kubernetes runtime's
   * client finds too (in a pod its service account, elsewhere the kubeconfig); shared by every
   * replica given the same namespace. A namespace holds one installation's store.
   */
  record Kubernetes(String namespace) implements StoreChoice {
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    public Kubernetes {
      Objects.requireNonNull(namespace, "namespace");
      if (!NAMESPACE.matcher(namespace).matches()) {
        throw new InvalidValueException(
            "--store kubernetes://NAMESPACE needs a namespace of 1-63 lowercase letters, digits"
                + " or inner '-', such as kubernetes://berth, was \""
                + namespace
                + "\"");
      }
    }
  }

  /** Whether several control planes may run on it at once. */
  default boolean shared() {
    return switch (this) {
      case Sqlite s -> false;
      case Postgres p -> true;
      case Kubernetes k -> true;
    };
  }

  /** The kind of store, as the build information names it: sqlite, postgres or kubernetes. */
  default String kind() {
    return switch (this) {
      case Sqlite s -> "sqlite";
      case Postgres p -> "postgres";
      case Kubernetes k -> "kubernetes";
    };
  }

  /**
   * Reads a {@code --store} value: {@code sqlite}, {@code postgres://user@host[:port]/db} (the
   * password from {@code PGPASSWORD} when the URL leaves it out), or {@code
   * kubernetes://namespace}.
   *
   * @throws InvalidValueException naming what is wrong and what to write instead
   */
  static StoreChoice parse(String value, Map<String, String> environment) {
    String lower = value.toLowerCase(java.util.Locale.ROOT);
    if (lower.equals("sqlite")) {
      return new Sqlite();
    }
    if (lower.startsWith("postgres://") || lower.startsWith("postgresql://")) {
      return new Postgres(PostgresLocation.parse(value, environment));
    }
    if (lower.startsWith(KUBERNETES)) {
      return new Kubernetes(value.substring(KUBERNETES.length()));
    }
    // The value itself is not repeated: a mistyped URL may well hold a password.
    throw new InvalidValueException(
        "--store must be sqlite (the data directory's database, the default), a PostgreSQL"
            + " URL such as postgres://berth@db.internal:5432/berth, or a Kubernetes namespace"
            + " such as kubernetes://berth, was "
            + ChoiceText.shape(value));
  }
}
