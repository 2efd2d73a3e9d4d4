package dev.berth.core.transition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.approval.ApprovalState;
import dev.berth.core.error.IllegalTransitionException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.operation.OperationState;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PhaseEvent;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.Session;
import dev.berth.core.testing.TestSessions;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every entity's one transition table: what it allows, and how it refuses the rest. */
class TransitionTablesTest {
  private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

  static Stream<TransitionTable<?, ?>> tables() {
    return Stream.of(
        Phase.TABLE,
        Reservation.TABLE,
        ObligationState.TABLE,
        ExecutionState.TABLE,
        OperationState.TABLE,
        ApprovalState.TABLE);
  }

  @ParameterizedTest
  @MethodSource("tables")
  <S extends Enum<S>, E extends Enum<E>> void everyDeclaredMoveIsFoundAndEveryOtherIsRefused(
      TransitionTable<S, E> table) {
    List<TransitionTable.Transition<S, E>> moves = table.transitions();
    assertThat(moves).isNotEmpty();
    for (TransitionTable.Transition<S, E> move : moves) {
      // A query, not next(): looking the table up must not count as taking its moves for the
      // transition coverage check (TransitionCoverage).
      assertThat(table.find(move.from(), move.event())).contains(move.to());
    }
    S from = moves.get(0).from();
    E event = moves.get(0).event();
    for (S state : from.getDeclaringClass().getEnumConstants()) {
      assertThat(table.ruleFor(state)).as("rule of %s", state).isNotBlank();
      for (E e : event.getDeclaringClass().getEnumConstants()) {
        boolean declared = moves.stream().anyMatch(m -> m.from() == state && m.event() == e);
        assertThat(table.allows(state, e)).isEqualTo(declared);
        if (!declared) {
          assertThatThrownBy(() -> table.next("subject-1", state, e))
              .isInstanceOf(IllegalTransitionException.class)
              .hasMessageContaining("subject-1")
              .hasMessageContaining(state.name())
              .hasMessageContaining(e.name())
              .hasMessageContaining(table.ruleFor(state));
        }
      }
    }
  }

  @Test
  void terminatedIsTheOnlyFinalPhaseAndAcceptsNoEvent() {
    for (PhaseEvent e : PhaseEvent.values()) {
      assertThat(Phase.TABLE.allows(Phase.TERMINATED, e)).isFalse();
    }
  }

  @Test
  void anIllegalSessionMoveNamesTheSessionThePhaseTheEventAndTheRule() {
    Session requested = TestSessions.requested(NOW);
    assertThatThrownBy(() -> requested.startSuspend(NOW))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage(
            "session "
                + requested.id()
                + " cannot take SUSPEND_STARTED in state"
                + " REQUESTED: a requested session has no runtime yet; it can only be provisioned"
                + " (REQUESTED accepts [PROVISION_STARTED, TERMINATE_STARTED, FAILED])");
  }

  @Test
  void aTerminatedIntentNeverChangesAndRepeatingItChangesNothing() {
    Session s = TestSessions.ready(NOW).withIntent(DesiredState.TERMINATED, NOW, "u", "delete");
    assertThat(s.withIntent(DesiredState.TERMINATED, NOW, "u", "again")).isSameAs(s);
    assertThatThrownBy(() -> s.withIntent(DesiredState.RUNNING, NOW, "u", "read"))
        .isInstanceOf(TerminalIntentException.class)
        .hasMessageContaining("final");
  }

  @Test
  void intentVersionsOnlyGrowAndStaleOnesAreRejected() {
    Session s = TestSessions.ready(NOW);
    Session suspended = s.withIntent(DesiredState.SUSPENDED, NOW, "u", "idle");
    assertThat(suspended.intent().version()).isEqualTo(s.intent().version() + 1);
    assertThatThrownBy(() -> suspended.intent().requireNotStale(suspended.subject(), 1))
        .isInstanceOf(StaleIntentException.class)
        .hasMessageContaining("rejected intent version 1");
  }

  @Test
  void readinessIsAConjunctionNotALiveProcess() {
    Session provisioning =
        TestSessions.requested(NOW)
            .startProvision("sim", NOW)
            .runtimeObserved(NOW, java.util.Optional.empty());
    assertThatThrownBy(() -> provisioning.becomeReady(NOW))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("readiness is a conjunction");
  }

  @Test
  void theReservationIsNotReleasedWhileARuntimeIsBelievedToExist() {
    Session ready = TestSessions.ready(NOW);
    assertThatThrownBy(ready::releaseReservation)
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("only after removal of runtime");
    Session gone = ready.runtimeGone(NOW, "Removed", "test");
    assertThat(gone.releaseReservation().reservation()).isEqualTo(Reservation.RELEASED);
  }
}
