package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.WorkloadType;
import dev.berth.server.ApprovalSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The server's approval options become its approval settings. */
class ApprovalOptionsTest {

  private static ApprovalSettings parse(String... args) {
    return CommandLine.populateCommand(new ApprovalOptions(), args).settings();
  }

  @Test
  void noOptionsGiveTheDefaults() {
    ApprovalSettings settings = parse();

    assertThat(settings.timeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(settings.gateway()).isEmpty();
    assertThat(settings.policyFor(new WorkloadType("minimax-code"), Optional.empty()))
        .isEqualTo(ApprovalPolicy.EXTERNAL);
  }

  @Test
  void theOptionsSetThePoliciesTheTimeoutAndTheExternalGateway() {
    ApprovalSettings settings =
        parse(
            "--approval",
            "claude-code=all,minimax-code=off",
            "--approval",
            "codex=external",
            "--approval-timeout",
            "2m",
            "--approval-gateway-url",
            "https://gw.example.com",
            "--approval-gateway-key-file",
            "/etc/berth/gw.key",
            "--approval-gateway-user",
            "berth-bot");

    assertThat(settings.policies())
        .containsEntry("claude-code", ApprovalPolicy.ALL)
        .containsEntry("minimax-code", ApprovalPolicy.OFF)
        .containsEntry("codex", ApprovalPolicy.EXTERNAL);
    assertThat(settings.timeout()).isEqualTo(Duration.ofMinutes(2));
    ApprovalSettings.ExternalGateway gateway = settings.gateway().orElseThrow();
    assertThat(gateway.url()).isEqualTo(URI.create("https://gw.example.com"));
    assertThat(gateway.keyFile()).isEqualTo(Path.of("/etc/berth/gw.key"));
    assertThat(gateway.user()).contains("berth-bot");
  }

  @Test
  void aGatewayUrlWithoutItsKeyFileIsRefused() {
    assertThatThrownBy(() -> parse("--approval-gateway-url", "https://gw.example.com"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--approval-gateway-key-file");
  }

  @Test
  void theCallbackUrlIsWhereSessionPodsReachTheControlPlaneAndMustBeAnHttpUrl() {
    assertThat(parse().podCallback()).isEmpty();
    assertThat(parse("--approval-callback-url", "http://berth.berth.svc").podCallback())
        .contains(URI.create("http://berth.berth.svc"));
    assertThatThrownBy(() -> parse("--approval-callback-url", "berth.berth.svc:8080"))
        .hasMessageContaining("--approval-callback-url")
        .hasMessageContaining("http://berth.berth-system.svc:8080");
    assertThatThrownBy(() -> parse("--approval-callback-url", "http://berth svc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--approval-callback-url");
  }
}
