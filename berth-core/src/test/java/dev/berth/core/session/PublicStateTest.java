package dev.berth.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The original's three states for every session an access can serve; the detail is the phase. */
class PublicStateTest {

  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
  private static final Duration IDLE_AFTER = Duration.ofMinutes(60);

  private static PublicState at(Session s, Instant when) {
    return PublicState.of(s, when, IDLE_AFTER);
  }

  private static ArchiveRef archive(long generation) {
    return new ArchiveRef(
        generation, "file:///a/" + generation, 10, "ab".repeat(32), NOW, List.of("home"));
  }

  @Test
  void aSessionStillProvisioningReadsActiveBecauseAnAccessWaitsForItAndIsServed() {
    Session requested = TestSessions.requested(NOW);
    assertThat(at(requested, NOW)).isEqualTo(PublicState.ACTIVE);
    assertThat(at(requested.startProvision("sim", NOW), NOW)).isEqualTo(PublicState.ACTIVE);
  }

  @Test
  void aReadySessionIsActiveUntilNobodyAccessedItForTheIdlePeriod() {
    Session ready = TestSessions.ready(NOW);
    assertThat(at(ready, NOW.plus(IDLE_AFTER).minusSeconds(1))).isEqualTo(PublicState.ACTIVE);
    assertThat(at(ready, NOW.plus(IDLE_AFTER))).isEqualTo(PublicState.IDLE);
  }

  @Test
  void aSessionSuspendingReadsActiveUntilItsArchiveIsCommittedAndTheRuntimeGone() {
    Session suspending =
        TestSessions.ready(NOW)
            .withIntent(DesiredState.SUSPENDED, NOW, "test", "snapshot")
            .startSuspend(NOW);
    assertThat(at(suspending, NOW.plus(IDLE_AFTER))).isEqualTo(PublicState.ACTIVE);

    Session suspended =
        suspending
            .archiveCommitted(archive(1))
            .runtimeGone(NOW, "Suspended", "removed")
            .completeSuspend(1);
    assertThat(at(suspended, NOW)).isEqualTo(PublicState.SNAPSHOT);
  }

  @Test
  void aSessionRestoringFromItsArchiveReadsSnapshotUntilItIsReady() {
    Session suspended =
        TestSessions.ready(NOW)
            .withIntent(DesiredState.SUSPENDED, NOW, "test", "snapshot")
            .startSuspend(NOW)
            .archiveCommitted(archive(1))
            .runtimeGone(NOW, "Suspended", "removed")
            .completeSuspend(1);
    Session resuming =
        suspended.withIntent(DesiredState.RUNNING, NOW, "test", "read").startResume("sim", NOW);

    assertThat(resuming.phase()).isEqualTo(Phase.RESUMING);
    assertThat(at(resuming, NOW)).isEqualTo(PublicState.SNAPSHOT);
    assertThat(at(TestSessions.makeReady(resuming, NOW), NOW)).isEqualTo(PublicState.ACTIVE);
  }

  @Test
  void onlyASessionNoAccessCanServeReadsFailedAndADeletedOneReadsDeleted() {
    Session failed =
        TestSessions.ready(NOW)
            .fail(new Failure(FailureReason.RUNTIME_LOST, "the runtime vanished"));
    assertThat(at(failed, NOW)).isEqualTo(PublicState.FAILED);

    Session terminating =
        TestSessions.ready(NOW)
            .withIntent(DesiredState.TERMINATED, NOW, "test", "delete")
            .startTerminate(NOW);
    assertThat(at(terminating, NOW)).isEqualTo(PublicState.DELETED);
  }
}
