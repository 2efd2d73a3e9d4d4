package dev.berth.core.error;

import java.util.Collection;
import java.util.stream.Collectors;

/** A tenant asked for a session of a workload type it was not granted. */
public final class WorkloadNotAllowedException extends BerthException {
  private static final long serialVersionUID = 1L;

  /**
   * @param tenant the tenant that asked
   * @param workloadType the type it asked for
   * @param granted the types it was granted
   */
  public WorkloadNotAllowedException(
      String tenant, String workloadType, Collection<String> granted) {
    super(
        "tenant "
            + tenant
            + " may not create workload type "
            + workloadType
            + ": it is granted only "
            + granted.stream().sorted().collect(Collectors.joining(", ", "[", "]"))
            + "; ask the administrator to grant "
            + workloadType
            + " to tenant "
            + tenant);
  }

  @Override
  public String reason() {
    return "WORKLOAD_NOT_ALLOWED";
  }
}
