package dev.berth.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The body of {@code POST /sessions}. Absent fields are left out of the body (the server refuses an
 * explicit {@code null}), so the server's defaults apply.
 *
 * @param workloadType as {@code shell}; the server's default when absent
 * @param tenant create on this tenant's behalf (admin only)
 * @param waitForActive wait (up to the server's 120 s) until the session is active; when false the
 *     server answers at once with the session still provisioning ({@code ?wait=false})
 */
public record NewSession(
    String name,
    Optional<String> workloadType,
    Optional<String> model,
    Optional<String> tenant,
    boolean waitForActive) {

  public NewSession {
    Objects.requireNonNull(name, "name is required");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a session's name must not be blank");
    }
  }

  /** A session called {@code name}, of the server's default type, waited for. */
  public static NewSession named(String name) {
    return new NewSession(name, Optional.empty(), Optional.empty(), Optional.empty(), true);
  }

  public NewSession workloadType(String value) {
    return new NewSession(name, Optional.of(value), model, tenant, waitForActive);
  }

  public NewSession model(String value) {
    return new NewSession(name, workloadType, Optional.of(value), tenant, waitForActive);
  }

  public NewSession tenant(String value) {
    return new NewSession(name, workloadType, model, Optional.of(value), waitForActive);
  }

  public NewSession waitForActive(boolean value) {
    return new NewSession(name, workloadType, model, tenant, value);
  }

  Map<String, Object> body() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    workloadType.ifPresent(v -> body.put("workloadType", v));
    model.ifPresent(v -> body.put("model", v));
    tenant.ifPresent(v -> body.put("tenant", v));
    return body;
  }
}
