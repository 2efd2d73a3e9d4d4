package dev.berth.core.access;

import static dev.berth.core.access.AccessFixture.AS_ACME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.RecoveryRefusedException;
import dev.berth.core.error.RecoveryRefusedException.Why;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RecoverSessionTest {

  private final AccessFixture f = new AccessFixture();

  private Session deletedAfterASnapshot() {
    Session snapshot = f.snapshot();
    f.deleteSession().delete(AS_ACME, snapshot.id(), OptionalLong.empty(), "tester");
    assertThat(f.get(snapshot.id()).phase()).isEqualTo(Phase.TERMINATED);
    return f.get(snapshot.id());
  }

  @Test
  void aDeletedSessionComesBackAsASnapshotOfItsLastArchiveUnderADerivedId() {
    Session deleted = deletedAfterASnapshot();

    Session recovered = f.recoverSession().recover(AS_ACME, deleted.id(), "tester");

    assertThat(recovered.id()).isEqualTo(RecoverSession.heirOf(deleted.id()));
    assertThat(recovered.phase()).isEqualTo(Phase.SUSPENDED);
    assertThat(recovered.archive()).isEqualTo(deleted.archive());
    assertThat(f.store.events(recovered.id(), 0, 100))
        .anySatisfy(e -> assertThat(e.type()).isEqualTo("session.recovered"));
  }

  @Test
  void aSecondRecoveryNamesTheSessionTheFirstOneMade() {
    Session deleted = deletedAfterASnapshot();
    Session recovered = f.recoverSession().recover(AS_ACME, deleted.id(), "tester");

    assertThatThrownBy(() -> f.recoverSession().recover(AS_ACME, deleted.id(), "tester"))
        .isInstanceOfSatisfying(
            RecoveryRefusedException.class,
            e -> assertThat(e.why()).isEqualTo(Why.ALREADY_RECOVERED))
        .hasMessageContaining(recovered.id().value());
  }

  @Test
  void aSessionThatIsNotDeletedCannotBeRecovered() {
    Session s = f.ready();

    assertThatThrownBy(() -> f.recoverSession().recover(AS_ACME, s.id(), "tester"))
        .isInstanceOfSatisfying(
            RecoveryRefusedException.class, e -> assertThat(e.why()).isEqualTo(Why.INVALID_STATE));
  }

  @Test
  void aSessionNeverSuspendedHasNoArchiveToRecoverFrom() {
    Session s = f.ready();
    f.deleteSession().delete(AS_ACME, s.id(), OptionalLong.empty(), "tester");

    assertThatThrownBy(() -> f.recoverSession().recover(AS_ACME, s.id(), "tester"))
        .isInstanceOfSatisfying(
            RecoveryRefusedException.class,
            e -> assertThat(e.why()).isEqualTo(Why.NOT_RECOVERABLE));
  }

  @Test
  void pastTheRecoveryWindowTheArchiveIsNoLongerKept() {
    Session deleted = deletedAfterASnapshot();
    f.clock.advance(f.lifecycle.recoveryWindow().plusMinutes(1));

    assertThatThrownBy(() -> f.recoverSession().recover(AS_ACME, deleted.id(), "tester"))
        .isInstanceOfSatisfying(
            RecoveryRefusedException.class,
            e -> assertThat(e.why()).isEqualTo(Why.RECOVERY_WINDOW_ENDED));
    assertThat(f.store.get(RecoverSession.heirOf(deleted.id()))).isEmpty();
  }

  @Test
  void theHeirsIdIsDerivedSoARetriedRecoveryFindsIt() {
    SessionId id = new SessionId("0123456789abcdef0123456789abcdef");

    assertThat(RecoverSession.heirOf(id)).isEqualTo(RecoverSession.heirOf(id)).isNotEqualTo(id);
  }
}
