package dev.berth.core.access;

import static dev.berth.core.access.AccessFixture.ACME;
import static dev.berth.core.access.AccessFixture.AS_ACME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.IsolationUnavailableException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.QuotaExceededException;
import dev.berth.core.idle.IdleDecision;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PublicState;
import dev.berth.core.session.Session;
import dev.berth.core.tenant.Tenant;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Create, delete, list, keep-alive and the idle explanation. */
class SessionRequestsTest {

  private final AccessFixture f = new AccessFixture();

  private static CreateSession.Request named(String name, Optional<String> type) {
    return new CreateSession.Request(
        name, type, Optional.empty(), List.of(), Optional.empty(), "tester", true);
  }

  @Test
  void aCreatedSessionIsActiveOnceItsRuntimeIsReady() {
    CreateSession.Created created =
        f.createSession(() -> {}).create(AS_ACME, named("  work  ", Optional.empty()));

    assertThat(created.active()).isTrue();
    assertThat(created.session().name()).isEqualTo("work");
    assertThat(created.session().phase()).isEqualTo(Phase.READY);
  }

  @Test
  void aBlankNameOrAnUnknownWorkloadTypeIsRefusedBeforeAnythingIsStored() {
    assertThatThrownBy(
            () -> f.createSession(() -> {}).create(AS_ACME, named(" ", Optional.empty())))
        .isInstanceOf(InvalidValueException.class);
    assertThatThrownBy(
            () -> f.createSession(() -> {}).create(AS_ACME, named("w", Optional.of("vim"))))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("vim");
    assertThat(f.store.list(dev.berth.core.store.SessionQuery.all(10)).items()).isEmpty();
  }

  @Test
  void aTenantAtItsQuotaHearsSoBeforeTheInstallationsOwnRequirement() {
    f.directory.upsertTenant(
        new Tenant(ACME, Set.of(dev.berth.core.session.WorkloadType.SHELL), 1, f.clock.instant()));
    f.ready();
    Runnable isolation =
        () -> {
          throw new IsolationUnavailableException("no isolation");
        };

    assertThatThrownBy(
            () -> f.createSession(isolation).create(AS_ACME, named("second", Optional.empty())))
        .isInstanceOf(QuotaExceededException.class);
  }

  @Test
  void theInstallationsRequirementRefusesANewSessionWithinTheQuota() {
    Runnable isolation =
        () -> {
          throw new IsolationUnavailableException("no isolation");
        };

    assertThatThrownBy(
            () -> f.createSession(isolation).create(AS_ACME, named("w", Optional.empty())))
        .isInstanceOf(IsolationUnavailableException.class);
  }

  @Test
  void aDeletedSessionIsGoneForTheApiAndASecondDeleteIsNotFound() {
    Session s = f.ready();

    DeleteSession.Deleted deleted =
        f.deleteSession().delete(AS_ACME, s.id(), OptionalLong.empty(), "tester");

    assertThat(deleted.terminated()).isTrue();
    assertThatThrownBy(
            () -> f.deleteSession().delete(AS_ACME, s.id(), OptionalLong.empty(), "tester"))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void aDeletionThatOutlastsTheWaitNamesItsOperation() {
    Session s = f.ready();
    f.cloud.removalStuck(true);

    DeleteSession.Deleted deleted =
        f.deleteSession().delete(AS_ACME, s.id(), OptionalLong.empty(), "tester");

    assertThat(deleted.terminated()).isFalse();
    assertThat(deleted.operation()).isPresent();
  }

  @Test
  void theListingNarrowsToPublicStatesAndToDeletedSessions() {
    Session active = f.ready();
    Session snapshot = f.snapshot();
    Session gone = f.ready();
    f.deleteSession().delete(AS_ACME, gone.id(), OptionalLong.empty(), "tester");
    ListSessions list = new ListSessions(f.store, f.admission, f.clock, f.settings.idleAfter());

    var snapshots =
        list.list(
            AS_ACME,
            new ListSessions.Listing(
                Optional.empty(),
                Set.of(PublicState.SNAPSHOT),
                false,
                OptionalInt.empty(),
                Optional.empty()));
    var deleted =
        list.list(
            AS_ACME,
            new ListSessions.Listing(
                Optional.empty(), Set.of(), true, OptionalInt.empty(), Optional.empty()));

    assertThat(snapshots.items()).extracting(Session::id).containsExactly(snapshot.id());
    assertThat(deleted.items()).extracting(Session::id).containsExactly(gone.id());
    assertThat(active.id()).isNotIn(snapshot.id(), gone.id());
  }

  @Test
  void aKeepAliveIsCappedAtThePolicysMaximumAndIsNotAnAccess() {
    Session s = f.ready();
    Duration max = f.settings.idle().maxKeepAlive();
    var lastAccess = s.activity().lastAccess();
    f.clock.advance(Duration.ofMinutes(1));

    Session kept =
        new KeepSessionAlive(f.store, f.clock, max)
            .keepAlive(AS_ACME, s.id(), Optional.of(max.multipliedBy(10)));

    assertThat(kept.activity().keepAliveUntil()).contains(f.clock.instant().plus(max));
    assertThat(kept.activity().lastAccess()).isEqualTo(lastAccess);
  }

  @Test
  void theIdleExplanationOfABusySessionHoldsItWithoutTouchingIt() {
    Session s = f.ready();
    f.clock.advance(f.settings.idle().suspendAfter().plusMinutes(1));
    f.data.busy(true);

    ExplainIdle.IdleView view = f.explainIdle().explain(AS_ACME, s.id());

    assertThat(view.decision()).isNotInstanceOf(IdleDecision.Suspend.class);
    assertThat(f.get(s.id()).activity().lastAccess()).isEqualTo(s.activity().lastAccess());
  }
}
