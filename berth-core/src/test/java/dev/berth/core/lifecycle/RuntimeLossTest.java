package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A runtime that is gone where it is not restored: right after it was created, or while a suspend
 * is in flight before its archive was committed. The session fails with a reason; executions that
 * had not finished, queued ones included, are lost with it.
 */
class RuntimeLossTest {
  private final LifecycleFixture f = new LifecycleFixture();

  private Operation operation(SessionId id, OperationType type) {
    return f.store.listOperations(id).stream()
        .filter(o -> o.type() == type)
        .reduce((older, newer) -> newer)
        .orElseThrow();
  }

  @Test
  void aRuntimeGoneAsSoonAsItWasCreatedFailsTheSessionWithRuntimeHealth() {
    f.cloud.dieOnStart(true);
    Session s = f.create();

    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);

    Session failed = f.get(s.id());
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.RUNTIME_HEALTH);
    assertThat(failed.runtime()).isEmpty();
    assertThat(operation(s.id(), OperationType.PROVISION).state()).isEqualTo(OperationState.FAILED);
  }

  @Test
  void aRuntimeThatVanishesMidSuspendBeforeItsArchiveWasCommittedFailsTheSession() {
    Session s = f.readyWithArchive();
    f.cloud.vanish(f.crashMidSuspend(s.id()).runtime().orElseThrow().name());
    f.restartControlPlane("cp-2");

    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);

    Session failed = f.get(s.id());
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.RUNTIME_LOST);
    assertThat(failed.failure().orElseThrow().message())
        .contains("it was not restored automatically while SUSPENDING");
    assertThat(failed.archive()).isEqualTo(s.archive());
    assertThat(operation(s.id(), OperationType.RECOVER).state()).isEqualTo(OperationState.FAILED);
  }

  @Test
  void anExecutionStillQueuedIsLostWithItsRuntime() {
    Session s = f.ready();
    Execution queued =
        f.store.createExecution(
            Execution.queued(
                ExecutionId.generate(new SplittableRandom(7)),
                s.id(),
                ExecutionKind.COMMAND,
                "make test",
                s.intent().version(),
                Optional.empty(),
                f.clock.instant()));
    f.cloud.vanish(s.runtime().orElseThrow().name());

    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);

    assertThat(f.store.getExecution(queued.id()).orElseThrow().state())
        .isEqualTo(ExecutionState.LOST);
  }
}
