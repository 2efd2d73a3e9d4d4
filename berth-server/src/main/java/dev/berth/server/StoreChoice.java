package dev.berth.server;

import dev.berth.core.error.InvalidValueException;
import dev.berth.server.store.sql.PostgresLocation;
import java.util.Map;
import java.util.Objects;

/**
 * Where the control plane keeps its records ({@code --store}): SQLite in the data directory, the
 * embedded default for one server; or a PostgreSQL database that any number of replicas share.
 */
public sealed interface StoreChoice {

  /** {@code berth.db} in the data directory; one server at a time. */
  record Sqlite() implements StoreChoice {}

  /** A PostgreSQL database, shared by every replica given the same location. */
  record Postgres(PostgresLocation location) implements StoreChoice {
    public Postgres {
      Objects.requireNonNull(location, "location");
    }
  }

  /** Whether several control planes may run on it at once. */
  default boolean shared() {
    return switch (this) {
      case Sqlite s -> false;
      case Postgres p -> true;
    };
  }

  /**
   * Reads a {@code --store} value: {@code sqlite}, or {@code postgres://user@host[:port]/db} (the
   * password from {@code PGPASSWORD} when the URL leaves it out).
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
    // The value itself is not repeated: a mistyped URL may well hold a password.
    throw new InvalidValueException(
        "--store must be sqlite (the data directory's database, the default) or a PostgreSQL"
            + " URL such as postgres://berth@db.internal:5432/berth, was "
            + ChoiceText.shape(value));
  }
}
