package dev.berth.server.store.sql;

import dev.berth.core.error.InvalidValueException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * Where a PostgreSQL store is: what {@code --store postgres://user:password@host:port/database}
 * names, as the JDBC URL, user and password the driver takes. Query parameters (such as {@code
 * sslmode=verify-full}) are passed on to the driver unchanged.
 *
 * <p>The password may be left out of the URL, which the process list and shell history show: it is
 * then taken from {@code PGPASSWORD}, as PostgreSQL's own tools take it. It never appears in {@link
 * #toString()} or in any message.
 *
 * @param jdbcUrl {@code jdbc:postgresql://host:port/database?...}
 * @param user the role to connect as
 * @param password empty when the server needs none (trust, or a client certificate)
 * @param display the location without credentials, for messages
 */
public record PostgresLocation(
    String jdbcUrl, String user, Optional<String> password, String display) {

  private static final String EXAMPLE = "postgres://berth:secret@db.internal:5432/berth";

  /**
   * Reads {@code uri}; {@code environment} supplies {@code PGPASSWORD} when the URL holds no
   * password.
   *
   * @throws InvalidValueException naming what is wrong, with an example of a valid location
   */
  public static PostgresLocation parse(String uri, Map<String, String> environment) {
    URI parsed = syntax(uri);
    // URI schemes are case-insensitive (RFC 3986).
    String scheme =
        parsed.getScheme() == null ? null : parsed.getScheme().toLowerCase(java.util.Locale.ROOT);
    if (!"postgres".equals(scheme) && !"postgresql".equals(scheme)) {
      throw invalid("it must start with postgres:// or postgresql://");
    }
    String host = parsed.getHost();
    String path = parsed.getRawPath();
    if (host == null || path == null || path.length() < 2 || path.indexOf('/', 1) >= 0) {
      throw invalid("it must name a host and a database, as in " + EXAMPLE);
    }
    String userInfo = parsed.getRawUserInfo();
    if (userInfo == null || userInfo.isEmpty() || userInfo.startsWith(":")) {
      throw invalid("it must name the user to connect as, as in " + EXAMPLE);
    }
    int colon = userInfo.indexOf(':');
    String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
    Optional<String> password =
        colon < 0
            ? Optional.ofNullable(environment.get("PGPASSWORD")).filter(p -> !p.isEmpty())
            : Optional.of(decode(userInfo.substring(colon + 1)));
    String hostPort = parsed.getPort() < 0 ? host : host + ":" + parsed.getPort();
    String query = parsed.getRawQuery() == null ? "" : "?" + parsed.getRawQuery();
    return new PostgresLocation(
        "jdbc:postgresql://" + hostPort + path + query,
        user,
        password,
        scheme + "://" + hostPort + path);
  }

  @Override
  public String toString() {
    return display;
  }

  private static URI syntax(String uri) {
    try {
      return new URI(uri);
    } catch (URISyntaxException e) {
      throw invalid("it is not a URL (" + e.getReason() + ")");
    }
  }

  private static String decode(String part) {
    return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** The location itself is left out: it may hold a password. */
  private static InvalidValueException invalid(String rule) {
    return new InvalidValueException(
        "postgres store location is not valid: "
            + rule
            + "; give --store postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or the password in"
            + " PGPASSWORD)");
  }
}
