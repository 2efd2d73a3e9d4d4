package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.approval.GatewayKeys;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.testing.TestSessions;
import dev.berth.server.store.sql.SqlSessionStore;
import dev.berth.server.telemetry.Telemetry;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which tool calls wait, for how long, and what an agent's launch carries of it to the node. */
class ApprovalSettingsTest {

  private static final WorkloadType CLAUDE = new WorkloadType("claude-code");
  private static final WorkloadType MINIMAX = new WorkloadType("minimax-code");

  @TempDir Path dir;

  @Test
  void minimaxCodeIsGatedForExternalCallsByDefaultAndTheOtherTypesAreNot() {
    ApprovalSettings defaults = ApprovalSettings.defaults();

    assertThat(defaults.policyFor(MINIMAX, Optional.empty())).isEqualTo(ApprovalPolicy.EXTERNAL);
    assertThat(defaults.policyFor(CLAUDE, Optional.empty())).isEqualTo(ApprovalPolicy.OFF);
    assertThat(defaults.timeout()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void theFlagWinsOverTheProvidersFileWhichWinsOverTheDefault() {
    Map<String, ApprovalPolicy> flags = new HashMap<>();
    ApprovalSettings.parseFlag("claude-code=all", flags);
    ApprovalSettings settings =
        new ApprovalSettings(flags, Duration.ofMinutes(5), Optional.empty());

    assertThat(settings.policyFor(CLAUDE, Optional.of(ApprovalPolicy.OFF)))
        .isEqualTo(ApprovalPolicy.ALL);
    assertThat(settings.policyFor(MINIMAX, Optional.of(ApprovalPolicy.OFF)))
        .isEqualTo(ApprovalPolicy.OFF);
  }

  @Test
  void aFlagThatIsNoTypeEqualsPolicyIsRefusedNamingTheForm() {
    Map<String, ApprovalPolicy> flags = new HashMap<>();

    assertThatThrownBy(() -> ApprovalSettings.parseFlag("claude-code", flags))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("TYPE=off|external|all");
    assertThatThrownBy(() -> ApprovalSettings.parseFlag("shell=all", flags))
        .hasMessageContaining("not an agent type");
    assertThatThrownBy(() -> ApprovalSettings.parseFlag("codex=sometimes", flags))
        .hasMessageContaining("off, external or all");
  }

  @Test
  void theProvidersFilesApprovalKeysAreReadByType() throws Exception {
    Path file = dir.resolve("providers.json");
    Files.writeString(
        file,
        "{\"claude-code\":{\"url\":\"https://x\",\"approval\":\"all\"},\"codex\":{\"url\":\"https://y\"}}");

    assertThat(ApprovalSettings.fromProvidersFile(Optional.of(file)))
        .isEqualTo(Map.of("claude-code", ApprovalPolicy.ALL));
    Files.writeString(file, "{\"codex\":{\"approval\":\"maybe\"}}");
    assertThatThrownBy(() -> ApprovalSettings.fromProvidersFile(Optional.of(file)))
        .hasMessageContaining("codex.approval");
  }

  @Test
  void aTimeoutUnderASecondAndAnExternalGatewayThatIsNotHttpAreRefused() {
    assertThatThrownBy(
            () -> new ApprovalSettings(Map.of(), Duration.ofMillis(10), Optional.empty()))
        .hasMessageContaining("--approval-timeout");
    assertThatThrownBy(
            () ->
                new ApprovalSettings.ExternalGateway(
                    URI.create("ftp://gw"), dir.resolve("k"), Optional.empty()))
        .hasMessageContaining("--approval-gateway-url");
  }

  @Test
  void aGatedAgentsLaunchCarriesThePolicyTheLoopbackGatewayItsRuntimesKeyAndTheTimeout()
      throws Exception {
    SessionId session = TestSessions.newId();
    RuntimeRef runtime = RuntimeRef.planned("local", session, 2);
    RuntimeSpec spec =
        new RuntimeSpec(
            runtime,
            MINIMAX,
            Optional.empty(),
            List.of(),
            new OwnershipLabels("berth-test", session, 2),
            false);
    byte[] key = GatewayKeyFile.loadOrCreate(dir);
    try (SqlSessionStore store =
            SqlSessionStore.openSqlite(dir.resolve("berth.db"), Clock.systemUTC());
        Telemetry telemetry = new Telemetry();
        ServerApprovals approvals =
            ServerApprovals.open(
                new ApprovalSettings(Map.of(), Duration.ofMinutes(3), Optional.empty()),
                Map.of(),
                store,
                key,
                Clock.systemUTC(),
                telemetry)) {
      approvals.bound(URI.create("http://127.0.0.1:8123"));

      Map<String, Object> launch = approvals.launch(spec).orElseThrow();

      assertThat(launch)
          .containsExactly(
              Map.entry("policy", "external"),
              Map.entry("gateway", "http://127.0.0.1:8123/gateway"),
              Map.entry("key", new GatewayKeys(key).keyFor(runtime.name())),
              Map.entry("timeoutSeconds", 180L));
      assertThat(approvals.launch(spec, ApprovalPolicy.OFF)).isEmpty();
    }
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve(GatewayKeyFile.FILE))))
        .isEqualTo("rw-------");
    assertThat(GatewayKeyFile.loadOrCreate(dir)).as("kept across starts").isEqualTo(key);
  }
}
