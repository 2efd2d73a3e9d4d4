package dev.berth.core.access;

import static dev.berth.core.access.AccessFixture.AS_ACME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.IntentSupersededException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.SnapshotRefusedException;
import dev.berth.core.error.SnapshotUnavailableException;
import dev.berth.core.error.WaitExpiredException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SnapshotSessionTest {

  private final AccessFixture f = new AccessFixture();

  @Test
  void aRunningSessionIsArchivedAndItsRuntimeReclaimed() {
    Session s = f.ready();

    Session snapshot =
        f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester");

    assertThat(snapshot.phase()).isEqualTo(Phase.SUSPENDED);
    assertThat(snapshot.archive()).isPresent();
    assertThat(f.cloud.live(s.id())).isEmpty();
  }

  @Test
  void aSnapshotIsAnsweredAsItIsWithoutANewArchive() {
    Session snapshot = f.snapshot();
    long generation = snapshot.archive().orElseThrow().generation();

    Session again =
        f.snapshotSession().snapshot(AS_ACME, snapshot.id(), OptionalLong.empty(), "tester");

    assertThat(again.archive().orElseThrow().generation()).isEqualTo(generation);
  }

  @Test
  void withSnapshotsTurnedOffTheRuntimeIsKeptAndTheRequestRefused() {
    f.settings = f.settings.withSuspendEnabled(false);
    Session s = f.ready();

    assertThatThrownBy(
            () -> f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester"))
        .isInstanceOf(SnapshotUnavailableException.class)
        .hasMessageContaining("the runtime is kept");
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.READY);
  }

  @Test
  void aStateTheRestoreWouldRefuseIsRefusedNowAndTheSessionStaysActive() {
    Session s = f.ready();
    f.cloud.refuseCheckpoints(dev.berth.core.agent.Refusal.ARCHIVE_REFUSED);

    assertThatThrownBy(
            () -> f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester"))
        .isInstanceOf(SnapshotRefusedException.class)
        .hasMessageContaining("stays active");
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.READY);
    assertThat(f.get(s.id()).intent().desired()).isEqualTo(DesiredState.RUNNING);
  }

  @Test
  void anAgentSessionWhosePromptsOutlastTheDrainIsRefusedAndStaysActive() {
    Session s = f.ready();
    f.cloud.refuseCheckpoints(dev.berth.core.agent.Refusal.PROMPTS_RUNNING);

    assertThatThrownBy(
            () -> f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester"))
        .isInstanceOf(SnapshotRefusedException.class)
        .hasMessageContaining("stays active");
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.READY);
    assertThat(f.get(s.id()).intent().desired()).isEqualTo(DesiredState.RUNNING);
  }

  @Test
  void aSnapshotOvertakenByAnotherRequestIsGivenUpNamingWhoAskedForWhat() {
    Session s = f.ready();
    f.betweenPasses =
        () ->
            f.intents.request(
                s.id(), DesiredState.RUNNING, OptionalLong.empty(), "carol", "needs it now");

    assertThatThrownBy(
            () -> f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester"))
        .isInstanceOf(IntentSupersededException.class)
        .hasMessageContaining("carol")
        .hasMessageContaining("needs it now");
  }

  @Test
  void aSuspendThatOutlastsTheWaitGoesOnAndSaysSo() {
    Session s = f.ready();
    f.stall = true;

    assertThatThrownBy(
            () -> f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester"))
        .isInstanceOf(WaitExpiredException.class)
        .hasMessageContaining("the suspend goes on");
    assertThat(f.get(s.id()).intent().desired()).isEqualTo(DesiredState.SUSPENDED);
  }

  @Test
  void aSessionWhoseDeletionWasAcceptedIsNotFoundForASnapshot() {
    Session s = f.ready();
    f.intents.request(s.id(), DesiredState.TERMINATED, OptionalLong.empty(), "tester", "gone");

    assertThatThrownBy(
            () -> f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester"))
        .isInstanceOf(NotFoundException.class);
  }
}
