package dev.berth.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TenantTest {
  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
  private static final TenantId ACME = new TenantId("acme");

  @Test
  void rejectsAQuotaOutsideOneToTenThousandNamingTheTenantAndTheValue() {
    assertThatThrownBy(() -> new Tenant(ACME, Set.of(WorkloadType.SHELL), 0, T0))
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("maxSessions of tenant acme must be between 1 and 10000, was 0");
    assertThatThrownBy(() -> new Tenant(ACME, Set.of(WorkloadType.SHELL), 10_001, T0))
        .hasMessageContaining("was 10001");
  }

  @Test
  void rejectsATenantWithoutAnyWorkloadType() {
    assertThatThrownBy(() -> new Tenant(ACME, Set.of(), 1, T0))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("workloadTypes of tenant acme must name at least one");
  }

  @Test
  void reservesTheAdminTenantForTheAdministrator() {
    assertThatThrownBy(() -> new Tenant(TenantId.ADMIN, Set.of(WorkloadType.SHELL), 1, T0))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("reserved for the administrator");
  }

  @Test
  void copiesItsWorkloadTypesSoLaterChangesToTheArgumentDoNotLeakIn() {
    Set<WorkloadType> types = new HashSet<>(Set.of(WorkloadType.SHELL));
    Tenant t = new Tenant(ACME, types, 1, T0);
    types.add(new WorkloadType("claude-code"));
    assertThat(t.workloadTypes()).containsExactly(WorkloadType.SHELL);
    assertThat(t.grants(WorkloadType.SHELL)).isTrue();
    assertThat(t.grants(new WorkloadType("claude-code"))).isFalse();
  }

  @Test
  void anUpdateKeepsTheCreationTimeAndRefusesAnotherTenantsRecord() {
    Tenant t = new Tenant(ACME, Set.of(WorkloadType.SHELL), 1, T0);
    Tenant u = t.updatedBy(new Tenant(ACME, Set.of(WorkloadType.SHELL), 7, T0.plusSeconds(5)));
    assertThat(u).isEqualTo(new Tenant(ACME, Set.of(WorkloadType.SHELL), 7, T0));
    assertThatThrownBy(
            () -> t.updatedBy(new Tenant(new TenantId("beta"), Set.of(WorkloadType.SHELL), 1, T0)))
        .isInstanceOf(InvalidValueException.class);
  }
}
