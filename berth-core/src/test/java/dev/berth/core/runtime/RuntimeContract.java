package dev.berth.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Runtime} adapter must pass, unchanged: an adapter's test extends this
 * class and says how to build its adapter, how long its runtimes may take to settle, and which of
 * the optional situations (a restarted control plane, a neighbouring installation, lost contact) it
 * can stage.
 *
 * <p>What the contract fixes beyond the port's javadoc, because the reconciler relies on it:
 *
 * <ul>
 *   <li>Right after {@code provision} returns, the runtime is never observed {@code Gone}: the
 *       reconciler takes Gone during a start as a failed start and plans the next incarnation.
 *   <li>A runtime provisioned to await a restore still becomes {@code Running}: its agent is what
 *       receives the archive.
 *   <li>A runtime name carries its incarnation: observing or removing another incarnation of the
 *       same session never touches the one that exists.
 *   <li>Without contact, observe answers {@code Unknown} and removal is {@code Unconfirmed}: the
 *       reconciler releases a reservation only on a confirmed removal.
 * </ul>
 *
 * <p>Isolation: the adapter's place (a node, a namespace) may be shared by the tests of a class and
 * hold runtimes of others, so every test uses fresh random session ids, asserts only about its own
 * runtimes, and removes what it provisioned when it ends.
 */
public abstract class RuntimeContract {

  private static final SecureRandom IDS = new SecureRandom();

  protected Runtime runtime;
  private final List<Provisioned> provisioned = new ArrayList<>();

  /** A runtime object a test created through {@code by}, removed when the test ends. */
  private record Provisioned(Runtime by, RuntimeRef ref) {}

  /** Another installation sharing the adapter's place, and its own adapter there. */
  public record Neighbour(String installation, Runtime runtime) {}

  /**
   * The adapter under test. It may be one adapter shared by every test of the class, on a place
   * that outlives the test; {@link #closeRuntime} frees it.
   */
  protected abstract Runtime newRuntime() throws Exception;

  /** Frees what {@link #newRuntime} allocated for one test. */
  protected void closeRuntime(Runtime r) throws Exception {}

  /** The installation the adapter serves: the one in the ownership labels it lists. */
  protected abstract String installation();

  /**
   * How long a provisioned runtime may take to be observed {@code Running}, and a removal to be
   * confirmed: a process starts at once, a pod waits for a node and an image.
   */
  protected abstract Duration settlesWithin();

  /**
   * A new adapter on the same place, as a restarted control plane builds it: it shares no memory
   * with the adapter under test. A fake that is its own place answers the same instance.
   */
  protected abstract Runtime restarted() throws Exception;

  /**
   * Another installation's adapter on the same place, whose runtimes the adapter under test must
   * not list; empty (which skips that test) when one adapter instance is the whole place and serves
   * every label it is given (a fake that one installation owns).
   */
  protected abstract Optional<Neighbour> neighbour() throws Exception;

  /**
   * Cuts the adapter under test off from its place while the runtimes there keep running (the node
   * hangs, the API server is partitioned away) until the returned handle is closed; empty (which
   * skips that test) when the adapter has no separate place to lose contact with.
   */
  protected abstract Optional<AutoCloseable> loseContact() throws Exception;

  @BeforeEach
  void setUpRuntime() throws Exception {
    runtime = newRuntime();
  }

  @AfterEach
  void removeWhatTheTestProvisioned() throws Exception {
    try {
      for (Provisioned p : provisioned) {
        removeUntilConfirmed(p.by(), p.ref());
      }
    } finally {
      closeRuntime(runtime);
    }
  }

  // ---- kind -----------------------------------------------------------------------------------

  @Test
  void theKindIsStableAcrossCallsAndRestartsSoTheRefsItWasRecordedInStayTheAdaptersOwn()
      throws Exception {
    String kind = runtime.kind();
    assertThat(kind).isNotBlank();
    assertThat(runtime.kind()).isEqualTo(kind);
    assertThat(restarted().kind()).isEqualTo(kind);
  }

  @Test
  void aRuntimeThatCanBeAskedPassesItsReachabilityCheckWithoutCreatingAnything() {
    runtime.checkReachable();

    assertThat(runtime.list()).isEmpty();
  }

  // ---- provision ------------------------------------------------------------------------------

  @Test
  void aProvisionedRuntimeBecomesRunningInTimeAndIsNeverObservedGoneMeanwhile() {
    RuntimeRef ref = provision(newSession(), 1);

    List<RuntimeObservation> before = awaitRunning(ref);

    assertThat(before)
        .as("observed before Running")
        .hasOnlyElementsOfType(RuntimeObservation.Starting.class);
  }

  @Test
  void provisioningTheSameSpecAgainMakesNoSecondRuntimeAndLeavesTheFirstRunning() {
    SessionId session = newSession();
    RuntimeRef ref = provision(session, 1);
    awaitRunning(ref);

    provision(session, 1);

    assertThat(runtime.observe(ref)).isInstanceOf(RuntimeObservation.Running.class);
    assertThat(listingsOf(runtime, session))
        .extracting(RuntimeListing::name)
        .containsExactly(ref.name());
  }

  @Test
  void concurrentProvisionsOfOneSpecMakeOneRuntime() throws Exception {
    SessionId session = newSession();
    RuntimeSpec spec = spec(session, 1, false);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        calls.add(
            pool.submit(
                () -> {
                  start.await();
                  runtime.provision(spec);
                  return null;
                }));
      }
      provisioned.add(new Provisioned(runtime, spec.runtime()));
      start.countDown();
      for (Future<?> call : calls) {
        call.get();
      }
    } finally {
      pool.shutdownNow();
    }

    awaitRunning(spec.runtime());
    assertThat(listingsOf(runtime, session))
        .extracting(RuntimeListing::name)
        .containsExactly(spec.runtime().name());
  }

  @Test
  void aRuntimeProvisionedToAwaitARestoreStillBecomesRunningSoItsAgentCanReceiveTheArchive() {
    RuntimeSpec spec = spec(newSession(), 1, true);
    provision(runtime, spec);

    awaitRunning(spec.runtime());
  }

  // ---- observe and remove ---------------------------------------------------------------------

  @Test
  void aRuntimeNeverProvisionedIsObservedGoneAndItsRemovalIsConfirmed() {
    RuntimeRef never = RuntimeRef.planned(runtime.kind(), newSession(), 1);

    assertGoneAndRemoved(never);
    assertThat(runtime.observe(never)).isInstanceOf(RuntimeObservation.Gone.class);
  }

  @Test
  void aRemovedRuntimeIsObservedGoneIsNoLongerListedAndASecondRemovalIsConfirmed() {
    SessionId session = newSession();
    RuntimeRef ref = provision(session, 1);
    awaitRunning(ref);

    removeUntilConfirmed(runtime, ref);

    assertGoneAndRemoved(ref);
    assertThat(listingsOf(runtime, session)).isEmpty();
  }

  @Test
  void anotherIncarnationOfTheSessionIsADifferentRuntimeThatStaleCallsNeverTouch() {
    SessionId session = newSession();
    RuntimeRef first = provision(session, 1);
    awaitRunning(first);
    RuntimeRef second = RuntimeRef.planned(runtime.kind(), session, 2);

    assertGoneAndRemoved(second);
    assertThat(runtime.observe(first)).isInstanceOf(RuntimeObservation.Running.class);

    removeUntilConfirmed(runtime, first);
    provision(session, 2);
    awaitRunning(second);

    assertGoneAndRemoved(first);
    assertThat(runtime.observe(second)).isInstanceOf(RuntimeObservation.Running.class);
    assertThat(listingsOf(runtime, session))
        .extracting(RuntimeListing::name, l -> l.labels().incarnation())
        .containsExactly(tuple(second.name(), 2L));
  }

  // ---- list -----------------------------------------------------------------------------------

  @Test
  void theListingFindsAProvisionedRuntimeByTheOwnershipLabelsItWasGiven() {
    SessionId session = newSession();
    RuntimeSpec spec = spec(session, 1, false);
    provision(runtime, spec);
    awaitRunning(spec.runtime());

    assertThat(listingsOf(runtime, session))
        .singleElement()
        .satisfies(
            listing -> {
              assertThat(listing.name()).isEqualTo(spec.runtime().name());
              assertThat(listing.labels()).isEqualTo(spec.labels());
              assertThat(listing.state()).isNotInstanceOf(RuntimeObservation.Gone.class);
            });
  }

  @Test
  void anotherInstallationsRuntimesOnTheSamePlaceAreNotListed() throws Exception {
    Optional<Neighbour> neighbour = neighbour();
    assumeThat(neighbour).as("the adapter knows other installations on its place").isPresent();
    Neighbour other = neighbour.get();
    assertThat(other.installation()).isNotEqualTo(installation());
    SessionId ours = newSession();
    SessionId theirs = newSession();
    RuntimeRef ourRef = provision(ours, 1);
    RuntimeSpec theirSpec =
        new RuntimeSpec(
            RuntimeRef.planned(other.runtime().kind(), theirs, 1),
            WorkloadType.SHELL,
            new OwnershipLabels(other.installation(), theirs, 1));
    provision(other.runtime(), theirSpec);
    awaitRunning(ourRef);
    awaitRunning(other.runtime(), theirSpec.runtime());

    assertThat(runtime.list())
        .extracting(l -> l.labels().session())
        .contains(ours)
        .doesNotContain(theirs);
    assertThat(other.runtime().list())
        .extracting(l -> l.labels().session())
        .contains(theirs)
        .doesNotContain(ours);
    assertThat(runtime.list())
        .allSatisfy(l -> assertThat(l.labels().installation()).isEqualTo(installation()));
  }

  // ---- restarts and lost contact --------------------------------------------------------------

  @Test
  void aRestartedAdapterObservesListsReprovisionsAndRemovesTheRuntimesOfTheEarlierOne()
      throws Exception {
    SessionId session = newSession();
    RuntimeSpec spec = spec(session, 1, false);
    provision(runtime, spec);
    awaitRunning(spec.runtime());
    Runtime later = restarted();

    assertThat(later.observe(spec.runtime())).isInstanceOf(RuntimeObservation.Running.class);
    later.provision(spec);
    assertThat(listingsOf(later, session))
        .extracting(RuntimeListing::name)
        .containsExactly(spec.runtime().name());
    removeUntilConfirmed(later, spec.runtime());
    assertThat(runtime.observe(spec.runtime())).isInstanceOf(RuntimeObservation.Gone.class);
  }

  @Test
  void withoutContactObserveAnswersUnknownAndRemovalIsNeverConfirmed() throws Exception {
    RuntimeRef ref = provision(newSession(), 1);
    awaitRunning(ref);

    Optional<AutoCloseable> cut = loseContact();
    assumeThat(cut).as("the adapter can lose contact with its place").isPresent();
    try {
      assertThat(runtime.observe(ref)).isInstanceOf(RuntimeObservation.Unknown.class);
      assertThat(runtime.remove(ref)).isInstanceOf(RemovalResult.Unconfirmed.class);
    } finally {
      cut.get().close();
    }

    // Unknown was not Gone: the runtime ran on, and is found again once contact returns.
    awaitRunning(ref);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static SessionId newSession() {
    return SessionId.generate(IDS);
  }

  private RuntimeSpec spec(SessionId session, long incarnation, boolean awaitRestore) {
    return new RuntimeSpec(
        RuntimeRef.planned(runtime.kind(), session, incarnation),
        WorkloadType.SHELL,
        new OwnershipLabels(installation(), session, incarnation),
        awaitRestore);
  }

  private RuntimeRef provision(SessionId session, long incarnation) {
    RuntimeSpec spec = spec(session, incarnation, false);
    provision(runtime, spec);
    return spec.runtime();
  }

  private void provision(Runtime by, RuntimeSpec spec) {
    provisioned.add(new Provisioned(by, spec.runtime()));
    by.provision(spec);
  }

  private List<RuntimeObservation> awaitRunning(RuntimeRef ref) {
    return awaitRunning(runtime, ref);
  }

  /**
   * Observes until Running, and returns what was seen before; stops at once on Gone, which the
   * reconciler would take for a failed start.
   */
  private List<RuntimeObservation> awaitRunning(Runtime by, RuntimeRef ref) {
    List<RuntimeObservation> seen =
        callWhile(
            () -> by.observe(ref),
            o ->
                o instanceof RuntimeObservation.Starting
                    || o instanceof RuntimeObservation.Unknown);
    assertThat(seen.getLast())
        .as("observed %s", seen)
        .isInstanceOf(RuntimeObservation.Running.class);
    return seen.subList(0, seen.size() - 1);
  }

  /** Removes until Confirmed, as the reconciler does across passes while removal is InProgress. */
  private void removeUntilConfirmed(Runtime by, RuntimeRef ref) {
    List<RemovalResult> results =
        callWhile(() -> by.remove(ref), r -> r instanceof RemovalResult.InProgress);
    assertThat(results.getLast())
        .as("removal of %s: %s", ref.name(), results)
        .isInstanceOf(RemovalResult.Confirmed.class);
  }

  /** Calls until an answer is no longer {@code pending}, within the adapter's bound. */
  private <T> List<T> callWhile(Supplier<T> call, Predicate<T> pending) {
    List<T> answers = new ArrayList<>();
    await()
        .atMost(settlesWithin())
        .pollInSameThread()
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              answers.add(call.get());
              return !pending.test(answers.getLast());
            });
    return answers;
  }

  /** Observed Gone, and its removal counts as done: what the reconciler needs to move on. */
  private void assertGoneAndRemoved(RuntimeRef ref) {
    assertThat(runtime.observe(ref)).as(ref.name()).isInstanceOf(RuntimeObservation.Gone.class);
    assertThat(runtime.remove(ref)).as(ref.name()).isInstanceOf(RemovalResult.Confirmed.class);
  }

  private static List<RuntimeListing> listingsOf(Runtime r, SessionId session) {
    return r.list().stream().filter(l -> l.labels().session().equals(session)).toList();
  }
}
