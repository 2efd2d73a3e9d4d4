package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.isolation.NetworkMode;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code runtime.json}, as a restarted host reads it back. */
class RuntimeDescriptorTest {

  private static final String SID = "b".repeat(32);

  @TempDir Path dir;

  @Test
  void aRuntimeProvisionedForAResumeIsRecordedAsAwaitingItsArchiveUntilRestored() {
    RuntimeRequest request =
        new RuntimeRequest("berth-" + SID + "-2", 2, "shell", Map.of("k", "v"), true);
    RuntimeDescriptor descriptor =
        RuntimeDescriptor.of(new SessionId(SID), request, Instant.parse("2026-01-01T00:00:00Z"));

    descriptor.write(dir);
    RuntimeDescriptor awaiting = RuntimeDescriptor.read(dir);
    descriptor.restored().write(dir);

    assertThat(awaiting).isEqualTo(descriptor);
    assertThat(awaiting.awaitRestore()).isTrue();
    assertThat(RuntimeDescriptor.read(dir).awaitRestore()).isFalse();
  }

  @Test
  void aDescriptorWrittenBeforeResumesExistedReadsAsARuntimeThatRan() throws IOException {
    Files.writeString(
        dir.resolve(RuntimeDescriptor.FILE),
        """
        {"format":1,"session":"%s","runtime":"berth-%s-1","incarnation":1,"workload":"shell",\
        "labels":{},"createdAt":"2026-01-01T00:00:00Z"}"""
            .formatted(SID, SID));

    assertThat(RuntimeDescriptor.read(dir).awaitRestore()).isFalse();
    assertThat(RuntimeDescriptor.read(dir).networkLimit()).as("the host's network").isEmpty();
  }

  @Test
  void aNetworkLimitOfTheRequestIsKeptThroughTheRestore() {
    RuntimeRequest request =
        new RuntimeRequest("berth-" + SID + "-2", 2, "shell", Map.of(), true, "none");
    RuntimeDescriptor.of(new SessionId(SID), request, Instant.parse("2026-01-01T00:00:00Z"))
        .restored()
        .write(dir);

    assertThat(RuntimeDescriptor.read(dir).networkLimit()).contains(NetworkMode.NONE);
  }

  @Test
  void theRequestsDisconnectPolicyIsKeptInTheDescriptor() {
    RuntimeRequest request =
        new RuntimeRequest(
            "berth-" + SID + "-2",
            2,
            "shell",
            Map.of(),
            false,
            null,
            null,
            new RuntimeRequest.Disconnect("stop", 0));
    RuntimeDescriptor descriptor =
        RuntimeDescriptor.of(new SessionId(SID), request, Instant.parse("2026-01-01T00:00:00Z"));

    descriptor.write(dir);

    assertThat(RuntimeDescriptor.read(dir)).isEqualTo(descriptor);
    assertThat(RuntimeDescriptor.read(dir).disconnect())
        .isEqualTo(new RuntimeRequest.Disconnect("stop", 0));
  }

  @Test
  void aRequestWithAnUnknownDisconnectPolicyOrGraceIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new RuntimeRequest.Disconnect("pause", 0))
        .hasMessageContaining("\"continue\" or \"stop\"");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new RuntimeRequest.Disconnect("continue", -1))
        .hasMessageContaining("graceSeconds");
  }

  @Test
  void aRequestWithAnUnknownNetworkIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new RuntimeRequest("berth-" + SID + "-2", 2, "shell", Map.of(), false, "host"))
        .hasMessageContaining("none or egress");
  }

  @Test
  void theDescriptorIsWrittenPrivateEvenOverALeftoverTemporaryFileOfAWiderMode()
      throws IOException {
    Path leftover = Files.writeString(dir.resolve(RuntimeDescriptor.FILE + ".tmp"), "half");
    Files.setPosixFilePermissions(leftover, PosixFilePermissions.fromString("rw-r--r--"));
    RuntimeRequest request = new RuntimeRequest("berth-" + SID + "-1", 1, "shell", Map.of());

    RuntimeDescriptor.of(new SessionId(SID), request, Instant.parse("2026-01-01T00:00:00Z"))
        .write(dir);

    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve(RuntimeDescriptor.FILE))))
        .isEqualTo("rw-------");
    assertThat(leftover).doesNotExist();
  }
}
