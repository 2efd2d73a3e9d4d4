package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.CommandContext;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.ConditionStatus;
import dev.berth.core.session.ConditionType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Obligation;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.testing.SimulatedCrash;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The five cases every store and runtime must pass (STATE-MODEL.md §5), at domain level: for each,
 * the session phase and conditions, the operation, the reservation and the obligations are asserted
 * separately.
 */
class FiveCasesTest {
  private final LifecycleFixture f = new LifecycleFixture();

  private List<Operation> operations(SessionId id, OperationType type) {
    return f.store.listOperations(id).stream().filter(o -> o.type() == type).toList();
  }

  private static Optional<Obligation> obligation(Session s, ObligationAction action) {
    return s.obligations().stream().filter(o -> o.action() == action).findFirst();
  }

  @Nested
  class DuplicateTermination {
    @Test
    void twoConcurrentRequestsTerminateOnceAndShareOneOperation() throws Exception {
      Session s = f.readyWithArchive();
      RuntimeRef runtime = s.runtime().orElseThrow();
      CountDownLatch go = new CountDownLatch(1);
      CompletableFuture<Operation> first = CompletableFuture.supplyAsync(() -> terminate(s, go));
      CompletableFuture<Operation> second = CompletableFuture.supplyAsync(() -> terminate(s, go));
      go.countDown();
      assertThat(first.get().id()).isEqualTo(second.get().id());

      CompletableFuture<ReconcileResult> a =
          CompletableFuture.supplyAsync(() -> f.reconcile(s.id()));
      CompletableFuture<ReconcileResult> b =
          CompletableFuture.supplyAsync(() -> f.reconcile(s.id()));
      assertThat(List.of(a.get(), b.get())).contains(ReconcileResult.CONVERGED);
      f.reconcile(s.id());
      Session done = f.get(s.id());

      // session
      assertThat(done.phase()).isEqualTo(Phase.TERMINATED);
      assertThat(done.runtime()).isEmpty();
      assertThat(f.cloud.live(s.id())).isEmpty();
      assertThat(f.store.events(s.id(), 0, 1000))
          .filteredOn(e -> e.detail().endsWith("-> TERMINATED"))
          .hasSize(1);
      // operation
      assertThat(operations(s.id(), OperationType.TERMINATE))
          .singleElement()
          .satisfies(
              op -> {
                assertThat(op.id()).isEqualTo(first.get().id());
                assertThat(op.state()).isEqualTo(OperationState.SUCCEEDED);
              });
      // reservation: released once, and only after removal was confirmed
      assertThat(done.reservation()).isEqualTo(Reservation.RELEASED);
      assertThat(obligation(done, ObligationAction.REMOVE_RUNTIME).orElseThrow())
          .satisfies(
              o -> {
                assertThat(o.state()).isEqualTo(ObligationState.DONE);
                assertThat(o.resource()).isEqualTo(Session.runtimeResource(runtime));
              });
      // obligations: the archive is retained for the recovery window
      Obligation retained = obligation(done, ObligationAction.RETAIN_ARCHIVE).orElseThrow();
      assertThat(retained.state()).isEqualTo(ObligationState.RETAINED);
      assertThat(retained.retainUntil()).contains(f.clock.instant().plus(Duration.ofDays(7)));
      assertThat(f.cloud.archiveExists(done.archive().orElseThrow().uri())).isTrue();
      assertThat(obligation(done, ObligationAction.REVOKE_CREDENTIALS).orElseThrow().state())
          .isEqualTo(ObligationState.DONE);
    }

    @Test
    void theRetainedArchiveIsDeletedOnlyAfterTheRecoveryWindow() {
      Session s = f.readyWithArchive();
      f.request(s.id(), DesiredState.TERMINATED);
      f.reconcile(s.id());
      String uri = f.get(s.id()).archive().orElseThrow().uri();

      f.clock.advance(Duration.ofDays(7).minusSeconds(1));
      f.reconcile(s.id());
      assertThat(f.cloud.archiveExists(uri)).isTrue();

      f.clock.advance(Duration.ofSeconds(1));
      f.reconcile(s.id());
      assertThat(f.cloud.archiveExists(uri)).isFalse();
      assertThat(obligation(f.get(s.id()), ObligationAction.RETAIN_ARCHIVE).orElseThrow().state())
          .isEqualTo(ObligationState.DONE);
    }

    private Operation terminate(Session s, CountDownLatch go) {
      try {
        go.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return f.intents.request(
          s.id(), DesiredState.TERMINATED, OptionalLong.empty(), "user", "delete");
    }
  }

  @Nested
  class StaleResume {
    @Test
    void aResumeOfAnOlderIntentArrivingAfterTerminationIsRejectedAndProvisionsNothing() {
      Session s = f.ready();
      f.requestAndReconcile(s.id(), DesiredState.SUSPENDED, p -> p == Phase.SUSPENDED);
      Operation resume =
          f.intents.request(s.id(), DesiredState.RUNNING, OptionalLong.of(2), "client-a", "read");
      long resumeVersion = resume.intentVersion();
      f.request(s.id(), DesiredState.TERMINATED);
      int createdBefore = f.cloud.created(s.id());
      Session beforeReconcile = f.get(s.id());

      // control plane, at the API: the late resume is stale, and termination is final
      assertThatThrownBy(
              () ->
                  f.intents.request(
                      s.id(),
                      DesiredState.RUNNING,
                      OptionalLong.of(resumeVersion),
                      "client-a",
                      "read"))
          .isInstanceOf(StaleIntentException.class)
          .hasMessageContaining("rejected intent version " + resumeVersion);
      assertThatThrownBy(
              () ->
                  f.intents.request(
                      s.id(), DesiredState.RUNNING, OptionalLong.empty(), "client-a", "read"))
          .isInstanceOf(TerminalIntentException.class);

      f.reconcile(s.id());
      Session after = f.get(s.id());
      // session
      assertThat(after.phase()).isEqualTo(Phase.TERMINATED);
      assertThat(after.intent().version()).isEqualTo(beforeReconcile.intent().version());
      // operation: the recorded resume was superseded, nothing was provisioned
      assertThat(f.store.getOperation(resume.id()).orElseThrow().state())
          .isEqualTo(OperationState.SUPERSEDED);
      assertThat(f.cloud.created(s.id())).isEqualTo(createdBefore);
      assertThat(f.cloud.live(s.id())).isEmpty();
      // reservation: a suspended session held none, and termination did not take one
      assertThat(beforeReconcile.reservation()).isEqualTo(Reservation.RELEASED);
      assertThat(after.reservation()).isEqualTo(Reservation.RELEASED);
      // obligations: only those of termination, none for a runtime that never existed
      assertThat(obligation(after, ObligationAction.REMOVE_RUNTIME)).isEmpty();
      assertThat(obligation(after, ObligationAction.RETAIN_ARCHIVE).orElseThrow().state())
          .isEqualTo(ObligationState.RETAINED);
    }

    @Test
    void theAgentRejectsACommandOfAnOlderIntentAfterAcceptingTermination() {
      Session s = f.ready();
      RuntimeRef runtime = s.runtime().orElseThrow();
      f.crashAt("terminate.remove-runtime");
      f.request(s.id(), DesiredState.TERMINATED);
      assertThatThrownBy(() -> f.reconcile(s.id())).isInstanceOf(SimulatedCrash.class);
      Session terminating = f.get(s.id());
      CommandContext stale =
          new CommandContext(
              s.id(),
              1,
              f.clock.instant().plusSeconds(30),
              OperationId.of(s.id(), OperationType.RESUME, 1));

      assertThatThrownBy(
              () ->
                  f.cloud.send(
                      runtime,
                      new AgentCommand.Restore(stale, f.cloud.begin(s.id(), 9).commit(List.of()))))
          .isInstanceOf(StaleIntentException.class);
      assertThat(terminating.phase()).isEqualTo(Phase.TERMINATING);
      assertThat(terminating.reservation()).isEqualTo(Reservation.HELD);
      assertThat(f.cloud.live(s.id())).extracting(RuntimeRef::name).containsExactly(runtime.name());
    }
  }

  @Nested
  class RuntimeDisappearance {
    @Test
    void aVanishedRuntimeLosesItsExecutionsAndIsRestoredFromTheLastArchive() {
      Session s = f.readyWithArchive();
      RuntimeRef vanished = s.runtime().orElseThrow();
      Execution running =
          f.store.createExecution(
              Execution.queued(
                  ExecutionId.generate(new SplittableRandom(1)),
                  s.id(),
                  ExecutionKind.COMMAND,
                  "sleep 100",
                  s.intent().version(),
                  Optional.empty(),
                  f.clock.instant()));
      f.store.updateExecution(running.start(0, f.clock.instant()), 1);
      f.cloud.vanish(vanished.name());

      f.crashAt("start.create-runtime");
      assertThatThrownBy(() -> f.reconcile(s.id())).isInstanceOf(SimulatedCrash.class);
      Session lost = f.get(s.id());
      // session, as recorded before the new runtime exists
      assertThat(lost.phase()).isEqualTo(Phase.RESUMING);
      assertThat(lost.conditions().get(ConditionType.RUNTIME_OBSERVED).orElseThrow())
          .satisfies(
              c -> {
                assertThat(c.status()).isEqualTo(ConditionStatus.FALSE);
                assertThat(c.reason()).isEqualTo("RUNTIME_LOST");
              });
      assertThat(f.store.getExecution(running.id()).orElseThrow().state())
          .isEqualTo(ExecutionState.LOST);
      assertThat(lost.reservation()).isEqualTo(Reservation.HELD);

      f.restartControlPlane("cp-2");
      assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);
      Session restored = f.get(s.id());
      // session
      assertThat(restored.phase()).isEqualTo(Phase.READY);
      assertThat(restored.runtime().orElseThrow().incarnation())
          .isEqualTo(vanished.incarnation() + 1);
      assertThat(restored.conditions().isTrue(ConditionType.WORKSPACE_READY)).isTrue();
      assertThat(f.cloud.live(s.id()))
          .extracting(RuntimeRef::name)
          .containsExactly(restored.runtime().orElseThrow().name());
      // operation
      assertThat(operations(s.id(), OperationType.RECOVER))
          .singleElement()
          .extracting(Operation::state)
          .isEqualTo(OperationState.SUCCEEDED);
      // reservation: held throughout
      assertThat(restored.reservation()).isEqualTo(Reservation.HELD);
      // obligations: none owed; the vanished runtime needs no removal
      assertThat(restored.obligations()).isEmpty();
    }

    @Test
    void aVanishedRuntimeWithoutAnArchiveFailsWithRuntimeLost() {
      Session s = f.ready();
      f.cloud.vanish(s.runtime().orElseThrow().name());

      assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);
      Session failed = f.get(s.id());
      assertThat(failed.phase()).isEqualTo(Phase.FAILED);
      assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.RUNTIME_LOST);
      assertThat(failed.conditions().status(ConditionType.RUNTIME_OBSERVED))
          .isEqualTo(ConditionStatus.FALSE);
      assertThat(failed.runtime()).isEmpty();
      assertThat(operations(s.id(), OperationType.RECOVER))
          .singleElement()
          .satisfies(
              op -> {
                assertThat(op.state()).isEqualTo(OperationState.FAILED);
                assertThat(op.error().orElseThrow().reason()).isEqualTo("RUNTIME_LOST");
              });
      assertThat(failed.reservation()).isEqualTo(Reservation.HELD);
      assertThat(failed.obligations()).isEmpty();
      assertThat(f.cloud.created(s.id())).isEqualTo(1);
    }
  }

  @Nested
  class ConnectorDisconnect {
    @Test
    void anUnreachableAgentMakesTheRuntimeUnknownAndStartsNothing() {
      Session s = f.ready();
      int operationsBefore = f.store.listOperations(s.id()).size();
      f.cloud.partition(s.id());
      f.clock.advance(Duration.ofMinutes(5));

      assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.WAITING);
      Session cut = f.get(s.id());
      // session
      assertThat(cut.phase()).isEqualTo(Phase.READY);
      assertThat(cut.conditions().status(ConditionType.RUNTIME_OBSERVED))
          .isEqualTo(ConditionStatus.UNKNOWN);
      assertThat(cut.runtime()).isEqualTo(s.runtime().map(r -> cut.runtime().orElseThrow()));
      // operation: none started, no second runtime
      assertThat(f.store.listOperations(s.id())).hasSize(operationsBefore);
      assertThat(f.cloud.created(s.id())).isEqualTo(1);
      // reservation: uncertain and still counted
      assertThat(cut.reservation()).isEqualTo(Reservation.UNCERTAIN);
      assertThat(cut.reservation().counts()).isTrue();
      // obligations: none added
      assertThat(cut.obligations()).isEmpty();

      f.cloud.heal(s.id());
      assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);
      Session back = f.get(s.id());
      assertThat(back.conditions().status(ConditionType.RUNTIME_OBSERVED))
          .isEqualTo(ConditionStatus.TRUE);
      assertThat(back.reservation()).isEqualTo(Reservation.HELD);
    }

    @Test
    void aSuspendThatCannotReachTheAgentWaitsWithoutRemovingTheRuntime() {
      Session s = f.ready();
      f.cloud.partition(s.id());
      f.request(s.id(), DesiredState.SUSPENDED);

      assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.WAITING);
      Session waiting = f.get(s.id());
      assertThat(waiting.phase()).isEqualTo(Phase.SUSPENDING);
      assertThat(waiting.archive()).isEmpty();
      assertThat(f.cloud.live(s.id())).hasSize(1);
      assertThat(waiting.reservation()).isEqualTo(Reservation.UNCERTAIN);

      f.cloud.heal(s.id());
      f.reconcile(s.id());
      assertThat(f.get(s.id()).phase()).isIn(Phase.READY, Phase.SUSPENDED);
      f.reconcile(s.id());
      assertThat(f.get(s.id()).phase()).isEqualTo(Phase.SUSPENDED);
      assertThat(f.cloud.live(s.id())).isEmpty();
    }
  }

  @Nested
  class RestoreOfAnOlderStoreSnapshot {
    @Test
    void recoveryAdoptsNewerIntentQuarantinesUnknownRuntimesAndDeletesNothing() {
      Session kept = f.ready();
      Session terminatedLater = f.ready();
      Object backup = f.store.snapshot();

      f.crashAt("terminate.remove-runtime");
      f.request(terminatedLater.id(), DesiredState.TERMINATED);
      assertThatThrownBy(() -> f.reconcile(terminatedLater.id()))
          .isInstanceOf(SimulatedCrash.class);
      Session bornLater = f.ready();
      f.store.restore(backup);
      f.restartControlPlane("cp-2");

      // The reconciler notices the runtime is ahead of the store and does nothing itself.
      assertThat(f.reconcile(terminatedLater.id())).isEqualTo(ReconcileResult.RECOVERY_NEEDED);
      assertThat(f.get(terminatedLater.id()).intent().desired()).isEqualTo(DesiredState.RUNNING);

      RecoveryReport report = f.recovery().run();

      assertThat(report.adopted()).containsExactly(terminatedLater.id().value());
      assertThat(report.quarantined()).containsExactly(bornLater.runtime().orElseThrow().name());
      Session adopted = f.get(terminatedLater.id());
      // session: adopts the runtime's newer, terminal intent
      assertThat(adopted.intent().desired()).isEqualTo(DesiredState.TERMINATED);
      assertThat(adopted.intent().version()).isEqualTo(2);
      // operation
      assertThat(operations(terminatedLater.id(), OperationType.RECOVER))
          .singleElement()
          .extracting(Operation::state)
          .isEqualTo(OperationState.SUCCEEDED);
      // reservation: no release during recovery
      assertThat(adopted.reservation()).isEqualTo(Reservation.HELD);
      // obligations and deletions: none; the quarantined runtime is listed and kept
      assertThat(adopted.obligations()).isEmpty();
      assertThat(f.cloud.live(terminatedLater.id())).hasSize(1);
      assertThat(f.cloud.live(bornLater.id())).hasSize(1);
      assertThat(f.store.events(bornLater.id(), 0, 10))
          .anySatisfy(e -> assertThat(e.type()).isEqualTo("runtime.quarantined"));
      assertThat(f.get(kept.id())).isEqualTo(kept);

      // After recovery, termination runs to completion with the release after removal.
      assertThat(f.reconcile(terminatedLater.id())).isEqualTo(ReconcileResult.CONVERGED);
      Session done = f.get(terminatedLater.id());
      assertThat(done.phase()).isEqualTo(Phase.TERMINATED);
      assertThat(done.reservation()).isEqualTo(Reservation.RELEASED);
      assertThat(f.cloud.live(terminatedLater.id())).isEmpty();
      assertThat(f.cloud.live(bornLater.id())).hasSize(1);
    }

    @Test
    void reconcilersDoNothingWhileRecoveryModeIsOn() {
      Session s = f.ready();
      f.request(s.id(), DesiredState.TERMINATED);
      assertThat(f.recoveryMode.enter()).isTrue();
      try {
        assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.RECOVERY_NEEDED);
        assertThat(f.get(s.id()).phase()).isEqualTo(Phase.READY);
        assertThat(f.cloud.live(s.id())).hasSize(1);
      } finally {
        f.recoveryMode.leave();
      }
    }
  }
}
