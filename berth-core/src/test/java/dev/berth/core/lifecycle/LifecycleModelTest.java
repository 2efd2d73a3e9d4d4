package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.error.BerthException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.testing.SimulatedCrash;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A seeded randomized model test: random sequences of intents (some stale), reconcile passes that
 * crash at random failpoints, clock jumps past lease expiry, vanishing runtimes and network
 * partitions; after every action the invariants of the lifecycle are checked against the
 * simulation's ground truth. On failure the seed is printed; re-run with {@code -Dberth.seed=N}.
 */
class LifecycleModelTest {
  private static final int RUNS = 150;
  private static final int ACTIONS = 40;

  @Test
  void randomIntentsAndFaultsNeverBreakTheLifecycleInvariants() {
    long seed = Long.getLong("berth.seed", System.nanoTime());
    int runs = Long.getLong("berth.seed") == null ? RUNS : 1;
    SplittableRandom seeds = new SplittableRandom(seed);
    for (int run = 0; run < runs; run++) {
      long runSeed = run == 0 ? seed : seeds.nextLong();
      try {
        new Model(runSeed).play();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "lifecycle model failed with seed "
                + runSeed
                + "; re-run with -Dberth.seed="
                + runSeed
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  /** One random run over one session. */
  private static final class Model {
    private final SplittableRandom random;
    private final LifecycleFixture f = new LifecycleFixture();
    private final SessionId id;
    private int restarts;
    private boolean sawTerminal;
    private long lastIntentVersion;
    private long lastStoreVersion;
    private long lastIncarnation;

    Model(long seed) {
      this.random = new SplittableRandom(seed);
      this.id = f.create().id();
    }

    void play() {
      for (int i = 0; i < ACTIONS; i++) {
        act();
        checkInvariants();
      }
      settle();
    }

    private void act() {
      int dice = random.nextInt(100);
      if (dice < 30) {
        requestIntent();
      } else if (dice < 70) {
        reconcileMaybeCrashing();
      } else if (dice < 78) {
        f.clock.advance(Duration.ofSeconds(random.nextInt(1, 90)));
      } else if (dice < 84) {
        f.store.get(id).flatMap(Session::runtime).ifPresent(r -> f.cloud.vanish(r.name()));
      } else if (dice < 92) {
        f.cloud.partition(id);
      } else if (dice < 97) {
        f.cloud.heal(id);
      } else {
        f.store.touch(id, f.clock.instant());
      }
    }

    private void requestIntent() {
      DesiredState desired =
          random.nextInt(10) < 2
              ? DesiredState.TERMINATED
              : (random.nextBoolean() ? DesiredState.RUNNING : DesiredState.SUSPENDED);
      long current = f.get(id).intent().version();
      OptionalLong ifMatch =
          switch (random.nextInt(3)) {
            case 0 -> OptionalLong.empty();
            case 1 -> OptionalLong.of(current);
            default -> OptionalLong.of(Math.max(1, current - 1));
          };
      try {
        f.intents.request(id, desired, ifMatch, "model", "random");
      } catch (BerthException expected) {
        // Stale If-Match and requests after termination are rejected; that is the point.
      }
    }

    private void reconcileMaybeCrashing() {
      if (random.nextInt(4) == 0) {
        f.failpoints =
            name -> {
              if (random.nextInt(3) == 0) {
                f.failpoints = Failpoints.NONE;
                throw new SimulatedCrash(name);
              }
            };
      }
      try {
        f.reconcile(id);
      } catch (SimulatedCrash crash) {
        restarts++;
        if (random.nextBoolean()) {
          f.restartControlPlane("cp-restart-" + restarts);
        }
      } finally {
        f.failpoints = Failpoints.NONE;
      }
    }

    private void checkInvariants() {
      Session s = f.get(id);
      List<RuntimeRef> live = f.cloud.live(id);
      if (sawTerminal) {
        assertThat(s.intent().desired())
            .as("terminal intent is final")
            .isEqualTo(DesiredState.TERMINATED);
      }
      sawTerminal |= s.intent().isTerminal();
      assertThat(s.intent().version())
          .as("intent version only grows")
          .isGreaterThanOrEqualTo(lastIntentVersion);
      assertThat(s.version())
          .as("store version only grows")
          .isGreaterThanOrEqualTo(lastStoreVersion);
      assertThat(s.incarnation())
          .as("incarnations only grow")
          .isGreaterThanOrEqualTo(lastIncarnation);
      lastIntentVersion = s.intent().version();
      lastStoreVersion = s.version();
      lastIncarnation = s.incarnation();
      assertThat(live).as("never two runtimes of one session live").hasSizeLessThanOrEqualTo(1);
      for (RuntimeRef r : live) {
        assertThat(s.runtime().map(RuntimeRef::name))
            .as("every live runtime is the recorded one")
            .contains(r.name());
      }
      if (s.reservation() == Reservation.RELEASED) {
        assertThat(live).as("reservation released only after removal was confirmed").isEmpty();
      }
      if (s.phase() == Phase.SUSPENDED) {
        assertThat(s.archive()).as("a suspended session has a committed archive").isPresent();
        assertThat(f.cloud.archiveExists(s.archive().get().uri())).isTrue();
      }
    }

    /** Heals everything and lets the reconciler finish: the session must reach its intent. */
    private void settle() {
      f.cloud.healAll();
      f.restartControlPlane("cp-final");
      ReconcileResult result = null;
      for (int i = 0; i < 5 && result != ReconcileResult.CONVERGED; i++) {
        result = f.reconcile(id);
        checkInvariants();
      }
      assertThat(result)
          .as(
              "converges once faults stop: %s, operations %s",
              f.get(id), f.store.listOperations(id))
          .isEqualTo(ReconcileResult.CONVERGED);
      Session s = f.get(id);
      Phase expected =
          switch (s.intent().desired()) {
            case RUNNING -> Phase.READY;
            case SUSPENDED -> Phase.SUSPENDED;
            case TERMINATED -> Phase.TERMINATED;
          };
      if (s.phase() != Phase.FAILED || s.intent().isTerminal()) {
        assertThat(s.phase()).as("phase matches intent %s", s.intent()).isEqualTo(expected);
      }
      List<Operation> open =
          f.store.listOperations(id).stream()
              .filter(o -> !o.state().isFinished() && o.type() != OperationType.RECOVER)
              .toList();
      assertThat(open).as("no lifecycle operation left unfinished").isEmpty();
    }
  }
}
