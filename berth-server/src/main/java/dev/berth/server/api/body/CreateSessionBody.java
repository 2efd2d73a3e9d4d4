package dev.berth.server.api.body;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.server.api.StrictJson;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The body of {@code POST /sessions}; required.
 *
 * <p>Only the syntax of the optional fields is checked here. Whether the workload type exists and
 * is enabled, whether the caller was granted it, which type applies when none is named, whether the
 * model suits the type and whether the caller may create on behalf of {@code tenant} are the
 * service's decisions, because they depend on configuration and on the caller.
 *
 * @param name the session's name, stored trimmed: 1 to {@value Session#MAX_NAME_LENGTH} characters
 *     after trimming; required
 * @param workloadType a workload type name ({@code shell}); absent means the default type
 * @param model the model, for workload types that take one; not blank when present
 * @param plugins marketplace plugin names, for workload types that take them; the list is all the
 *     session gets, fixed for its life
 * @param tenant the tenant to create for (an admin acting on a tenant's behalf)
 */
public record CreateSessionBody(
    String name,
    Optional<String> workloadType,
    Optional<String> model,
    Optional<List<String>> plugins,
    Optional<String> tenant) {

  /** The longest model name accepted, in characters. */
  public static final int MAX_MODEL_LENGTH = 200;

  public CreateSessionBody {
    Objects.requireNonNull(workloadType, "workloadType");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(plugins, "plugins");
    Objects.requireNonNull(tenant, "tenant");
    if (name == null) {
      throw StrictJson.missingField("name");
    }
    String trimmed = name.strip();
    if (trimmed.isEmpty() || trimmed.length() > Session.MAX_NAME_LENGTH) {
      throw StrictJson.invalidField(
          "name", "must be 1-" + Session.MAX_NAME_LENGTH + " characters after trimming", name);
    }
    name = trimmed;
    workloadType.ifPresent(CreateSessionBody::checkWorkloadType);
    model.ifPresent(CreateSessionBody::checkModel);
    tenant.ifPresent(CreateSessionBody::checkTenant);
  }

  /** A body naming only the session. */
  public static CreateSessionBody named(String name) {
    return new CreateSessionBody(
        name, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }

  private static void checkWorkloadType(String value) {
    try {
      new WorkloadType(value);
    } catch (InvalidValueException e) {
      throw StrictJson.invalidField(
          "workloadType",
          "must be a workload type name (a lowercase letter, then up to 31 lowercase letters,"
              + " digits or '-')",
          value);
    }
  }

  private static void checkModel(String value) {
    if (value.isBlank() || value.length() > MAX_MODEL_LENGTH) {
      throw StrictJson.invalidField(
          "model", "must be 1-" + MAX_MODEL_LENGTH + " characters and not blank", value);
    }
  }

  private static void checkTenant(String value) {
    try {
      new TenantId(value);
    } catch (InvalidValueException e) {
      throw StrictJson.invalidField(
          "tenant", "must be 1-63 lowercase letters, digits or inner '-'", value);
    }
  }
}
