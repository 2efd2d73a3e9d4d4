package dev.berth.core.access;

import static dev.berth.core.access.AccessFixture.AS_ACME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.agent.AgentRefusedException;
import dev.berth.core.agent.ByteStream;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotRunningException;
import dev.berth.core.error.RuntimeUnavailableException;
import dev.berth.core.session.Phase;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SessionDataTest {

  private final AccessFixture f = new AccessFixture();

  @Test
  void aWriteLongerThanOneAgentCallReachesTheTerminalWholeAndInOrder() {
    Session s = f.ready();
    byte[] payload = new byte[DataPlane.MAX_INPUT * 2 + 5];
    Arrays.fill(payload, (byte) 'a');
    payload[payload.length - 1] = 'z';

    f.sessionData().write(AS_ACME, s.id(), payload, "tester");

    String output = f.data.output(s.runtime().orElseThrow());
    assertThat(output).hasSize(payload.length).endsWith("az");
  }

  @Test
  void aReadOfASnapshotRestoresItAndAnswersWithTheAgentsDocument() throws Exception {
    Session s = f.ready();
    f.sessionData().write(AS_ACME, s.id(), "hello".getBytes(StandardCharsets.UTF_8), "tester");
    f.snapshotSession().snapshot(AS_ACME, s.id(), java.util.OptionalLong.empty(), "tester");

    SessionData.Served<ByteStream> read = f.sessionData().read(AS_ACME, s.id(), 0, "tester");

    assertThat(read.activation().path()).isEqualTo("snapshot->restore->read");
    try (ByteStream answer = read.result()) {
      assertThat(new String(answer.body().readAllBytes(), StandardCharsets.UTF_8))
          .startsWith("{\"offset\":0");
    }
  }

  @Test
  void aNegativeOffsetIsRefusedBeforeTheSessionIsTouched() {
    Session s = f.ready();
    var before = f.get(s.id()).activity().lastAccess();
    f.clock.advance(java.time.Duration.ofSeconds(3));

    assertThatThrownBy(() -> f.sessionData().read(AS_ACME, s.id(), -1, "tester"))
        .isInstanceOf(InvalidValueException.class);
    assertThat(f.get(s.id()).activity().lastAccess()).isEqualTo(before);
  }

  @Test
  void aWriteThatFindsTheRuntimePausedByTheIdlePolicyTakesTheSuspendBackAndIsDeliveredOnce() {
    Session s = f.ready();
    RuntimeRef runtime = s.runtime().orElseThrow();
    // The idle policy asked between the activation and the call; the agent paused the runtime.
    f.data.refuseNextInput(
        runtime, dev.berth.core.agent.Refusal.SUSPENDING, () -> f.idlePolicyAsksToSuspend(s.id()));

    MakeActive.Activation served =
        f.sessionData().write(AS_ACME, s.id(), "ls\n".getBytes(StandardCharsets.UTF_8), "tester");

    assertThat(f.data.output(runtime)).isEqualTo("ls\n");
    assertThat(served.path()).isEqualTo("idle->active->write");
    assertThat(served.session().phase()).isEqualTo(Phase.READY);
    assertThat(served.session().runtime()).contains(runtime);
  }

  @Test
  void anotherRefusalOfTheAgentIsPassedOnAndTheReconcilerAskedToLook() {
    Session s = f.ready();
    f.data.refuseNextInput(s.runtime().orElseThrow(), dev.berth.core.agent.Refusal.OTHER);

    assertThatThrownBy(() -> f.sessionData().write(AS_ACME, s.id(), new byte[] {'x'}, "tester"))
        .isInstanceOf(AgentRefusedException.class);
    assertThat(f.enqueued).contains(s.id());
  }

  @Test
  void aRuntimeTheAgentNoLongerHostsIsUnavailableAndReconciledNow() {
    Session s = f.ready();
    f.cloud.vanish(s.runtime().orElseThrow().name());
    f.enqueued.clear();

    assertThatThrownBy(() -> f.sessionData().write(AS_ACME, s.id(), new byte[] {'x'}, "tester"))
        .isInstanceOf(RuntimeUnavailableException.class)
        .hasMessageContaining("being reconciled");
    assertThat(f.enqueued).contains(s.id());
  }

  @Test
  void passiveUseOfASnapshotIsRefusedAndRestoresNothing() {
    Session snapshot = f.snapshot();

    assertThatThrownBy(() -> f.sessionData().passive(AS_ACME, snapshot.id()))
        .isInstanceOf(NotRunningException.class)
        .hasMessageContaining("suspended");
    assertThat(f.get(snapshot.id()).phase()).isEqualTo(Phase.SUSPENDED);
  }
}
