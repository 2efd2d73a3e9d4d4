package dev.berth.core.transition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationError;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Failure;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Obligation;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Declared moves that no deterministic test of the lifecycle takes, taken here on their entities
 * (the transition coverage check, see {@link TransitionCoverage}, asks that some test takes each).
 * The state model allows them, and they stay in their tables: a session may fail before it is
 * provisioned (say, an image policy refuses its image) and a failed session may be recovered from
 * its archive, an operation may fail before it starts; no code path takes these yet. An obligation
 * to retain an archive is done once the server hands the archive of a deleted session to the
 * session recovered from it, which only the end-to-end tests exercise.
 */
class MovesNoLifecyclePathTakesTest {
  private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

  @Test
  void aRequestedSessionMayFailBeforeItIsProvisioned() {
    Session failed =
        TestSessions.requested(NOW)
            .fail(new Failure(FailureReason.IMAGE_POLICY, "the image is not allowed"));

    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.runtime()).isEmpty();
  }

  @Test
  void aFailedSessionWithAnArchiveAndNoRuntimeMayBeRecoveredFromTheArchive() {
    Session suspended =
        TestSessions.ready(NOW)
            .withIntent(DesiredState.SUSPENDED, NOW, "user", "pause")
            .startSuspend(NOW)
            .archiveCommitted(
                new ArchiveRef(
                    1, "file:///archives/a/1.tar.zst", 10, "ab".repeat(32), NOW, List.of()))
            .runtimeGone(NOW, "Suspended", "removed")
            .completeSuspend(1);
    Session failed =
        suspended
            .withIntent(DesiredState.RUNNING, NOW, "user", "read")
            .startResume("sim", NOW)
            .fail(new Failure(FailureReason.RUNTIME_HEALTH, "the runtime did not start"))
            .runtimeGone(NOW, "RuntimeLost", "gone");

    Session recovering = failed.startRecovery("sim", NOW);

    assertThat(recovering.phase()).isEqualTo(Phase.RESUMING);
    assertThat(recovering.failure()).isEmpty();
    assertThat(recovering.runtime().orElseThrow().incarnation())
        .isEqualTo(failed.incarnation() + 1);
  }

  @Test
  void anOperationMayFailBeforeItStarted() {
    Session s = TestSessions.requested(NOW);
    Operation pending =
        Operation.pending(
            OperationId.of(s.id(), OperationType.PROVISION, 1),
            s.id(),
            OperationType.PROVISION,
            1,
            NOW,
            NOW.plus(Duration.ofMinutes(10)));

    Operation failed = pending.fail(new OperationError("SCHEDULING", "no node fits"), NOW);

    assertThat(failed.state()).isEqualTo(OperationState.FAILED);
    assertThat(failed.attempts()).isZero();
  }

  @Test
  void aRetainedArchiveHandedToARecoveredSessionIsDone() {
    Obligation retained =
        Obligation.pending(ObligationAction.RETAIN_ARCHIVE, "file:///archives/a/1.tar.zst", "keep")
            .retain(NOW.plus(Duration.ofDays(7)), "kept for the recovery window");

    Obligation done = retained.complete("handed to recovered session b");

    assertThat(done.state()).isEqualTo(ObligationState.DONE);
    assertThat(done.retainUntil()).isEmpty();
  }
}
