package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.store.Lease;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The operation ledger of one reconcile pass: one read, no write to find, one create at most. */
class OperationLedgerTest {
  private final LifecycleFixture f = new LifecycleFixture();
  private final CountingSessionStore counting = new CountingSessionStore(f.store);
  private final java.util.List<String> events = new java.util.ArrayList<>();
  private final OperationEvents listener =
      new OperationEvents() {
        @Override
        public void recorded(Operation operation) {
          events.add("recorded " + operation.type() + " " + operation.state());
        }

        @Override
        public void updated(Operation before, Operation after) {
          events.add("updated " + before.state() + "->" + after.state() + " v" + after.version());
        }
      };

  private OperationLedger ledgerOf(Session s) {
    Lease lease = f.store.leases().acquire(s.id(), "cp-1", Duration.ofSeconds(30)).orElseThrow();
    return new OperationLedger(counting.store, s.id(), lease.token(), listener);
  }

  /** The ledger of {@code s}, shown {@code s} once (so it has read its operations). */
  private OperationLedger following(Session s) {
    OperationLedger ledger = ledgerOf(s);
    ledger.follow(s);
    return ledger;
  }

  private Operation pending(Session s, OperationType type, long n) {
    return Operation.pending(
        OperationId.of(s.id(), type, n),
        s.id(),
        type,
        s.intent().version(),
        f.clock.instant(),
        f.clock.instant().plus(Duration.ofMinutes(10)));
  }

  @Test
  void readsTheSessionsOperationsOnceHoweverOftenItIsAsked() {
    Session s = f.create();
    OperationLedger ledger = ledgerOf(s);
    for (int i = 0; i < 3; i++) {
      ledger.follow(s);
      assertThat(ledger.operations()).hasSize(1);
      assertThat(ledger.find(OperationId.of(s.id(), OperationType.PROVISION, 1))).isPresent();
      ledger.findOrCreate(pending(s, OperationType.PROVISION, 1));
    }
    assertThat(counting.calls("listOperations")).isEqualTo(1);
    assertThat(counting.calls("getOperation")).isZero();
  }

  @Test
  void findingNeverWritesNotEvenForAMissingOperation() {
    Session s = f.create();
    OperationLedger ledger = following(s);
    assertThat(ledger.find(OperationId.of(s.id(), OperationType.SUSPEND, 7))).isEmpty();
    assertThat(ledger.findOrCreate(pending(s, OperationType.PROVISION, 1)).type())
        .isEqualTo(OperationType.PROVISION);
    assertThat(counting.calls("createOperation")).isZero();
    assertThat(counting.calls("updateOperation")).isZero();
  }

  @Test
  void createsAMissingOperationOnceAndRemembersIt() {
    Session s = f.create();
    OperationLedger ledger = following(s);
    Operation first = ledger.findOrCreate(pending(s, OperationType.TERMINATE, 2));
    Operation again = ledger.findOrCreate(pending(s, OperationType.TERMINATE, 2));
    assertThat(again).isEqualTo(first);
    assertThat(counting.calls("createOperation")).isEqualTo(1);
    assertThat(ledger.operations())
        .extracting(Operation::type)
        .containsExactly(OperationType.PROVISION, OperationType.TERMINATE);
    assertThat(f.store.getOperation(first.id())).contains(first);
  }

  @Test
  void anOperationSomeoneRecordedSinceTheReadIsFoundNotRecordedTwice() {
    Session s = f.create();
    OperationLedger ledger = following(s);
    Operation theirs = f.store.createOperation(pending(s, OperationType.TERMINATE, 2));
    Operation found = ledger.findOrCreate(pending(s, OperationType.TERMINATE, 2).attempt());
    assertThat(found).isEqualTo(theirs);
    assertThat(found.state()).isEqualTo(OperationState.PENDING);
    assertThat(f.store.listOperations(s.id())).hasSize(2);
  }

  @Test
  void updatesThroughTheLedgerKeepItsViewCurrentWithoutReadingAgain() {
    Session s = f.create();
    OperationLedger ledger = following(s);
    Operation op = ledger.find(OperationId.of(s.id(), OperationType.PROVISION, 1)).orElseThrow();
    Operation running = ledger.update(op.attempt());
    assertThat(running.version()).isEqualTo(op.version() + 1);
    assertThat(ledger.find(op.id())).contains(running);
    assertThat(ledger.operations()).containsExactly(running);
    assertThat(counting.calls("listOperations")).isEqualTo(1);
  }

  @Test
  void reportsEachStoredCreateAndUpdateAndNothingItOnlyFound() {
    Session s = f.create();
    OperationLedger ledger = following(s);
    Operation op = ledger.find(OperationId.of(s.id(), OperationType.PROVISION, 1)).orElseThrow();
    ledger.findOrCreate(pending(s, OperationType.PROVISION, 1));
    assertThat(events).as("found, not stored").isEmpty();
    Operation running = ledger.update(op.attempt());
    ledger.findOrCreate(pending(s, OperationType.TERMINATE, 2));
    assertThat(events)
        .containsExactly(
            "updated PENDING->RUNNING v" + running.version(), "recorded TERMINATE PENDING");
  }

  @Test
  void readsAgainOnlyWhenTheIntentMovedSinceItsRead() {
    Session s = f.ready();
    OperationLedger ledger = following(s);
    Session suspending = f.request(s.id(), DesiredState.SUSPENDED);
    ledger.follow(suspending);
    ledger.follow(suspending);
    assertThat(counting.calls("listOperations")).isEqualTo(2);
    assertThat(ledger.find(OperationId.of(s.id(), OperationType.SUSPEND, 2))).isPresent();
  }

  @Test
  void refusesToAnswerBeforeItWasShownItsSessionAndToFollowAnother() {
    Session s = f.create();
    OperationLedger ledger = ledgerOf(s);
    assertThatThrownBy(ledger::operations).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> ledger.follow(f.create()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(s.id().toString());
  }

  @Test
  void aWholePassReadsTheOperationsOnceAndRecordsNoneTheIntentAlreadyRecorded() {
    Session s = f.create();
    Reconciler reconciler =
        new Reconciler(
            counting.store,
            f.cloud,
            f.cloud,
            f.cloud,
            f.clock,
            f.settings,
            f.recoveryMode,
            Failpoints.NONE);
    assertThat(reconciler.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.READY);
    assertThat(counting.calls("listOperations")).isEqualTo(1);
    assertThat(counting.calls("createOperation")).isZero();
    assertThat(counting.calls("getOperation")).isZero();

    f.request(s.id(), DesiredState.SUSPENDED);
    counting.reset();
    assertThat(reconciler.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.SUSPENDED);
    assertThat(counting.calls("listOperations")).isEqualTo(1);
    assertThat(counting.calls("createOperation")).isZero();
  }

  @Test
  void aRestartedControlPlaneRepeatingAStepFindsTheOperationTheDeadOneRecorded() {
    Session s = f.ready();
    f.crashMidSuspend(s.id());
    f.restartControlPlane("cp-2");
    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.SUSPENDED);
    assertThat(f.store.listOperations(s.id()))
        .filteredOn(o -> o.type() == OperationType.SUSPEND)
        .singleElement()
        .satisfies(
            op -> {
              assertThat(op.state()).isEqualTo(OperationState.SUCCEEDED);
              assertThat(op.attempts()).isEqualTo(2);
            });
  }
}
