package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import org.junit.jupiter.api.Test;

/**
 * An archive the agent will not restore fails the resume with the agent's reason, once; one it
 * would not restore is refused when the checkpoint is taken, and the session stays ready.
 */
class RestoreRefusalTest {

  private final LifecycleFixture f = new LifecycleFixture();

  @Test
  void anArchiveTheAgentCallsCorruptFailsTheSessionWithThatReasonAndKeepsTheArchive() {
    Session ready = f.ready();
    Session suspended =
        f.requestAndReconcile(ready.id(), DesiredState.SUSPENDED, p -> p == Phase.SUSPENDED);
    String uri = suspended.archive().orElseThrow().uri();
    f.cloud.refuseRestores(dev.berth.core.agent.Refusal.ARCHIVE_CORRUPT);

    Session failed =
        f.requestAndReconcile(suspended.id(), DesiredState.RUNNING, p -> p == Phase.FAILED);

    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.ARCHIVE_CORRUPT);
    assertThat(failed.failure().orElseThrow().message()).contains(uri);
    assertThat(f.cloud.archiveExists(uri)).as("the archive is kept").isTrue();
    Operation resume =
        f.store.listOperations(suspended.id()).stream()
            .filter(op -> op.type() == OperationType.RESUME)
            .reduce((first, second) -> second)
            .orElseThrow();
    assertThat(resume.state()).isEqualTo(OperationState.FAILED);
    assertThat(resume.error().orElseThrow().reason()).isEqualTo("ARCHIVE_CORRUPT");
  }

  @Test
  void aCheckpointTheAgentRefusesGivesTheSuspendUpOnceAndLeavesTheSessionReadyWithTheReason() {
    Session ready = f.ready();
    f.cloud.refuseCheckpoints(dev.berth.core.agent.Refusal.ARCHIVE_REFUSED);

    Session back = f.requestAndReconcile(ready.id(), DesiredState.SUSPENDED, p -> p == Phase.READY);

    assertThat(back.failure()).isEmpty();
    assertThat(back.runtime()).isPresent();
    assertThat(back.intent().desired()).isEqualTo(DesiredState.RUNNING);
    assertThat(back.intent().requestedBy()).isEqualTo(Reconciler.ACTOR);
    assertThat(back.intent().reason()).contains("snapshot refused", "refuses checkpoint");
    Operation suspend =
        f.store.listOperations(ready.id()).stream()
            .filter(op -> op.type() == OperationType.SUSPEND)
            .reduce((first, second) -> second)
            .orElseThrow();
    assertThat(suspend.state()).isEqualTo(OperationState.FAILED);
    assertThat(suspend.error().orElseThrow().reason()).isEqualTo("ARCHIVE_REFUSED");
    assertThat(f.reconcile(ready.id()))
        .as("nothing retries it")
        .isEqualTo(ReconcileResult.CONVERGED);
    assertThat(f.get(ready.id()).intent().version()).isEqualTo(back.intent().version());
  }

  @Test
  void anArchiveMissingFromTheStoreFailsTheResumeAsMissingInsteadOfRetryingForever() {
    Session ready = f.ready();
    Session suspended =
        f.requestAndReconcile(ready.id(), DesiredState.SUSPENDED, p -> p == Phase.SUSPENDED);
    f.cloud.delete(suspended.archive().orElseThrow());

    Session failed =
        f.requestAndReconcile(suspended.id(), DesiredState.RUNNING, p -> p == Phase.FAILED);

    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.ARCHIVE_MISSING);
  }
}
