package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.store.StoreJson;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A tenant stored in a ConfigMap reads back whole, and one stored before a field was added too. */
class TenantCodecTest {
  private final TenantCodec codec = new TenantCodec(new StoreJson(Layout.REPAIR));

  @Test
  void everyFieldOfATenantReadsBackAsWritten() {
    Tenant tenant =
        new Tenant(
                new TenantId("acme"),
                Set.of(WorkloadType.SHELL, new WorkloadType("claude-code")),
                7,
                Instant.parse("2026-12-05T10:00:00.123456789Z"),
                NetworkAccess.NONE,
                Set.of(new ServiceAccount("ci", "builder")))
            .withApproval(ApprovalPolicy.ALL);

    assertThat(codec.read("tenant acme", codec.write(tenant))).isEqualTo(tenant);
  }

  @Test
  void aTenantStoredBeforeApprovalPoliciesReadsWithTheirDefault() {
    Tenant tenant = new Tenant(new TenantId("acme"), Set.of(WorkloadType.SHELL), 2, Instant.EPOCH);
    String older = codec.write(tenant).replace(",\"approval\":\"OFF\"", "");
    assertThat(older).doesNotContain("approval");

    assertThat(codec.read("tenant acme", older).approval()).isEqualTo(ApprovalPolicy.OFF);
  }
}
