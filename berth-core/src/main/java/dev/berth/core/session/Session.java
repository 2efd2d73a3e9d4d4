package dev.berth.core.session;

import dev.berth.core.error.IllegalTransitionException;
import dev.berth.core.error.InvalidValueException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A session: a governed workspace with its runtime identity. Immutable; every lifecycle method
 * returns the next session and goes through the {@linkplain Phase#TABLE phase table}, the
 * {@linkplain Reservation#TABLE reservation table} or the {@linkplain ObligationState#TABLE
 * obligation table}, which reject illegal moves.
 *
 * <p>Invariants kept here, whatever the caller does:
 *
 * <ul>
 *   <li>The intent version only grows and a TERMINATED intent never changes ({@link Intent}).
 *   <li>At most one runtime is believed to exist, and a new incarnation is planned only once the
 *       previous runtime was confirmed gone.
 *   <li>The reservation is released only once runtime removal is confirmed.
 *   <li>A suspend completes only behind a committed archive with the runtime confirmed gone.
 * </ul>
 *
 * <p>Implementation note on its size (over 400 lines): the session is the aggregate whose
 * invariants span its parts — a phase move that plans a runtime also takes the reservation and
 * writes a condition — so each lifecycle method must see every part, and splitting the moves over
 * helper classes would spread one invariant over several files. What can stand alone does ({@link
 * Intent}, {@link Conditions}, {@link Reservation}, {@link Obligation}, {@link Activity} are
 * records with their own rules); what remains is one method per lifecycle move.
 *
 * @param model the agent model fixed at create ({@link AgentModel#PLATFORM_DEFAULT} when none was
 *     asked for); empty for a shell
 * @param plugins the marketplace plugins fixed at create (none when none were asked for)
 * @param incarnation the highest runtime incarnation ever planned for this session
 * @param version the store's compare-and-swap version (0 before the session is stored)
 */
public record Session(
    SessionId id,
    TenantId tenant,
    String name,
    WorkloadType workloadType,
    Optional<AgentModel> model,
    List<PluginName> plugins,
    Instant createdAt,
    Intent intent,
    Phase phase,
    Conditions conditions,
    Optional<RuntimeRef> runtime,
    long incarnation,
    Optional<ArchiveRef> archive,
    Reservation reservation,
    List<Obligation> obligations,
    Activity activity,
    Optional<Failure> failure,
    long version) {

  private static final List<ConditionType> READINESS =
      List.of(
          ConditionType.RUNTIME_READY,
          ConditionType.POLICY_APPLIED,
          ConditionType.IDENTITY_BOUND,
          ConditionType.WORKSPACE_READY);

  /** The longest session name accepted, in characters. */
  public static final int MAX_NAME_LENGTH = 200;

  public Session {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(workloadType, "workloadType");
    // Records stored before agent sessions existed have no model: they are shells.
    model = Objects.requireNonNullElse(model, Optional.empty());
    // Records stored before plugins existed have none.
    plugins = List.copyOf(Objects.requireNonNullElse(plugins, List.of()));
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(intent, "intent");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(conditions, "conditions");
    Objects.requireNonNull(runtime, "runtime");
    Objects.requireNonNull(archive, "archive");
    Objects.requireNonNull(reservation, "reservation");
    Objects.requireNonNull(activity, "activity");
    Objects.requireNonNull(failure, "failure");
    obligations = List.copyOf(obligations);
    runtime.ifPresent(
        r -> {
          if (r.incarnation() > incarnation) {
            throw new IllegalArgumentException(
                "session " + id + " runtime incarnation " + r.incarnation() + " > " + incarnation);
          }
        });
  }

  /** A newly requested session without a model (a shell). */
  public static Session request(
      SessionId id,
      TenantId tenant,
      String name,
      WorkloadType workloadType,
      Instant now,
      String requestedBy) {
    return request(id, tenant, name, workloadType, Optional.empty(), List.of(), now, requestedBy);
  }

  /** A newly requested session: intent RUNNING v1, phase REQUESTED, reservation HELD. */
  public static Session request(
      SessionId id,
      TenantId tenant,
      String name,
      WorkloadType workloadType,
      Optional<AgentModel> model,
      List<PluginName> plugins,
      Instant now,
      String requestedBy) {
    String trimmed = name.strip();
    if (trimmed.isEmpty() || trimmed.length() > MAX_NAME_LENGTH) {
      throw new InvalidValueException(
          "session name must be 1-"
              + MAX_NAME_LENGTH
              + " characters after trimming, was \""
              + name
              + "\"");
    }
    return new Session(
        id,
        tenant,
        trimmed,
        workloadType,
        model,
        plugins,
        now,
        Intent.initial(now, requestedBy),
        Phase.REQUESTED,
        Conditions.none(),
        Optional.empty(),
        0,
        Optional.empty(),
        Reservation.HELD,
        List.of(),
        Activity.since(now),
        Optional.empty(),
        0);
  }

  /**
   * A session brought back from the last archive of a deleted one: a new session (a TERMINATED
   * intent is final, and agents keep the deleted one's tombstone), with the deleted one's tenant,
   * name and workload, already a snapshot of that archive. The first access restores it.
   */
  public static Session recovered(
      SessionId id, Session deleted, ArchiveRef archive, Instant now, String requestedBy) {
    return new Session(
        id,
        deleted.tenant(),
        deleted.name(),
        deleted.workloadType(),
        deleted.model(),
        deleted.plugins(),
        now,
        new Intent(
            DesiredState.SUSPENDED,
            1,
            now,
            requestedBy,
            "recovered from deleted session " + deleted.id().value()),
        Phase.SUSPENDED,
        Conditions.none(),
        Optional.empty(),
        0,
        Optional.of(archive),
        Reservation.RELEASED,
        List.of(),
        Activity.since(now),
        Optional.empty(),
        0);
  }

  /** How this session names itself in messages. */
  public String subject() {
    return "session " + id;
  }

  /**
   * Whether the session's deletion was accepted: its intent is {@code TERMINATED}, which is final.
   * From then on the public API answers for it as for an id that never existed, though the record
   * stays for the recovery window, the quota and the audit log.
   */
  public boolean deleted() {
    return intent.desired() == DesiredState.TERMINATED;
  }

  /** When the deletion was accepted, for a deleted session. */
  public Optional<Instant> deletedAt() {
    return deleted() ? Optional.of(intent.requestedAt()) : Optional.empty();
  }

  /** Whether the platform believes a runtime may exist for this session. */
  public boolean holdsRuntime() {
    return runtime.isPresent();
  }

  // ---- intent -------------------------------------------------------------------------------

  /** This session with its intent moved to {@code desired}; idempotent for the same desire. */
  @SuppressWarnings("ReferenceEquality") // change() returns the same intent when nothing changed
  public Session withIntent(DesiredState desired, Instant now, String by, String reason) {
    Intent next = intent.change(subject(), desired, now, by, reason);
    return next == intent ? this : edit().intent(next).build();
  }

  /**
   * Adopts a newer intent reported by the session's runtime (after the store was restored from an
   * older backup). Versions still only grow; a reported tombstone makes the intent TERMINATED.
   */
  public Session adoptIntent(Intent newer) {
    if (newer.version() <= intent.version()) {
      throw new IllegalArgumentException(
          subject()
              + " adopts only newer intent, offered v"
              + newer.version()
              + " while at v"
              + intent.version());
    }
    if (intent.isTerminal() && !newer.isTerminal()) {
      throw new dev.berth.core.error.TerminalIntentException(subject(), newer.desired().name());
    }
    return edit().intent(newer).build();
  }

  // ---- provisioning, resume, recovery -------------------------------------------------------

  /** REQUESTED → PROVISIONING, planning runtime incarnation n+1 before anything is created. */
  public Session startProvision(String runtimeKind, Instant now) {
    return planRuntime(PhaseEvent.PROVISION_STARTED, runtimeKind, now).build();
  }

  /** SUSPENDED → RESUMING: reserves quota again and plans a new runtime incarnation. */
  public Session startResume(String runtimeKind, Instant now) {
    requireArchive(PhaseEvent.RESUME_STARTED);
    Builder next = planRuntime(PhaseEvent.RESUME_STARTED, runtimeKind, now);
    if (reservation == Reservation.RELEASED) {
      next.reservation(Reservation.TABLE.next(subject(), reservation, Reservation.Event.RESERVE));
    }
    return next.build();
  }

  /** READY or FAILED → RESUMING after the runtime was confirmed lost: restore from the archive. */
  public Session startRecovery(String runtimeKind, Instant now) {
    requireArchive(PhaseEvent.RECOVERY_STARTED);
    return planRuntime(PhaseEvent.RECOVERY_STARTED, runtimeKind, now)
        .failure(Optional.empty())
        .build();
  }

  private Builder planRuntime(PhaseEvent event, String runtimeKind, Instant now) {
    Phase to = Phase.TABLE.next(subject(), phase, event);
    if (runtime.isPresent()) {
      throw refuse(
          event,
          "runtime "
              + runtime.get().name()
              + " is not confirmed gone; a session never has two"
              + " runtimes believed live");
    }
    long next = incarnation + 1;
    return edit()
        .phase(to)
        .incarnation(next)
        .runtime(Optional.of(RuntimeRef.planned(runtimeKind, id, next)))
        .conditions(
            conditions
                .with(
                    ConditionType.RUNTIME_READY,
                    ConditionStatus.FALSE,
                    "Planned",
                    "runtime incarnation " + next + " is being created",
                    now,
                    intent.version())
                .with(
                    ConditionType.ADMITTING,
                    ConditionStatus.FALSE,
                    "NotReady",
                    "the session is not ready yet",
                    now,
                    intent.version()));
  }

  /**
   * This session with a condition set. Setting RuntimeReady, PolicyApplied, IdentityBound and
   * WorkspaceReady is how the readiness conjunction is reported.
   */
  public Session withCondition(
      ConditionType type, ConditionStatus status, String reason, String message, Instant now) {
    return edit()
        .conditions(conditions.with(type, status, reason, message, now, intent.version()))
        .build();
  }

  /**
   * PROVISIONING or RESUMING → READY. Readiness is a conjunction: the runtime is healthy, policy
   * applied, identity bound and the workspace in place; a live process alone is not ready.
   */
  public Session becomeReady(Instant now) {
    Phase to = Phase.TABLE.next(subject(), phase, PhaseEvent.BECAME_READY);
    for (ConditionType type : READINESS) {
      if (!conditions.isTrue(type)) {
        throw refuse(
            PhaseEvent.BECAME_READY,
            "readiness is a conjunction of "
                + READINESS
                + " and "
                + type.wireName()
                + " is "
                + conditions.status(type));
      }
    }
    return edit()
        .phase(to)
        .failure(Optional.empty())
        .conditions(
            conditions.with(
                ConditionType.ADMITTING,
                ConditionStatus.TRUE,
                "Ready",
                "the session admits input and executions",
                now,
                intent.version()))
        .build();
  }

  // ---- observation --------------------------------------------------------------------------

  /** The runtime answered: RuntimeObserved=True, and an uncertain reservation is held again. */
  public Session runtimeObserved(Instant now, Optional<String> endpoint) {
    RuntimeRef current = requireRuntime("observe");
    Builder next =
        edit()
            .runtime(Optional.of(current.observedAt(now, endpoint)))
            .conditions(
                conditions.with(
                    ConditionType.RUNTIME_OBSERVED,
                    ConditionStatus.TRUE,
                    "Observed",
                    "runtime " + current.name() + " answered",
                    now,
                    intent.version()));
    if (reservation == Reservation.UNCERTAIN) {
      next.reservation(
          Reservation.TABLE.next(subject(), reservation, Reservation.Event.CONTACT_RESTORED));
    }
    return next.build();
  }

  /**
   * Contact with the runtime was lost. This is not termination: RuntimeObserved=Unknown and the
   * reservation becomes UNCERTAIN, still counted against the quota.
   */
  public Session runtimeUnreachable(Instant now, String detail) {
    RuntimeRef current = requireRuntime("mark unreachable");
    Builder next =
        edit()
            .conditions(
                conditions.with(
                    ConditionType.RUNTIME_OBSERVED,
                    ConditionStatus.UNKNOWN,
                    "Unreachable",
                    "runtime " + current.name() + ": " + detail,
                    now,
                    intent.version()));
    if (reservation == Reservation.HELD) {
      next.reservation(
          Reservation.TABLE.next(subject(), reservation, Reservation.Event.CONTACT_LOST));
    }
    return next.build();
  }

  /**
   * The runtime was confirmed gone (removed by us, or vanished). The session stops believing in it,
   * and any owed removal of it is done. The reservation is not touched here.
   */
  public Session runtimeGone(Instant now, String reason, String message) {
    RuntimeRef gone = requireRuntime("confirm gone");
    String resource = runtimeResource(gone);
    List<Obligation> owed = new ArrayList<>(obligations.size());
    for (Obligation o : obligations) {
      boolean isRemoval =
          o.action() == ObligationAction.REMOVE_RUNTIME && o.resource().equals(resource);
      owed.add(isRemoval && o.isOpen() ? o.complete("runtime confirmed gone") : o);
    }
    return edit()
        .runtime(Optional.empty())
        .obligations(owed)
        .conditions(
            conditions
                .with(
                    ConditionType.RUNTIME_OBSERVED,
                    ConditionStatus.FALSE,
                    reason,
                    message,
                    now,
                    intent.version())
                .with(
                    ConditionType.RUNTIME_READY,
                    ConditionStatus.FALSE,
                    reason,
                    message,
                    now,
                    intent.version())
                .with(
                    ConditionType.ADMITTING,
                    ConditionStatus.FALSE,
                    reason,
                    "no runtime to admit input",
                    now,
                    intent.version()))
        .build();
  }

  // ---- suspend ------------------------------------------------------------------------------

  /** READY → SUSPENDING; admission closes (writes answer SUSPENDING). */
  public Session startSuspend(Instant now) {
    Phase to = Phase.TABLE.next(subject(), phase, PhaseEvent.SUSPEND_STARTED);
    return edit()
        .phase(to)
        .conditions(
            conditions.with(
                ConditionType.ADMITTING,
                ConditionStatus.FALSE,
                "Suspending",
                "the session is being suspended",
                now,
                intent.version()))
        .build();
  }

  /** Records a committed archive; its generation must be newer than any before it. */
  public Session archiveCommitted(ArchiveRef committed) {
    archive.ifPresent(
        a -> {
          if (committed.generation() <= a.generation()) {
            throw new IllegalArgumentException(
                subject()
                    + " archive generation must grow: "
                    + committed.generation()
                    + " after "
                    + a.generation());
          }
        });
    return edit().archive(Optional.of(committed)).build();
  }

  /** SUSPENDING → READY after an aborted checkpoint; admission reopens. */
  public Session abortSuspend(Instant now) {
    Phase to = Phase.TABLE.next(subject(), phase, PhaseEvent.SUSPEND_ABORTED);
    return edit()
        .phase(to)
        .conditions(
            conditions.with(
                ConditionType.ADMITTING,
                ConditionStatus.TRUE,
                "SuspendAborted",
                "the suspend was aborted; the session admits input again",
                now,
                intent.version()))
        .build();
  }

  /**
   * SUSPENDING → SUSPENDED: only behind the committed archive of {@code generation} and with the
   * runtime confirmed gone; the reservation is released.
   */
  public Session completeSuspend(long generation) {
    Phase to = Phase.TABLE.next(subject(), phase, PhaseEvent.SUSPEND_COMPLETED);
    if (archive.map(ArchiveRef::generation).orElse(0L) != generation) {
      throw refuse(
          PhaseEvent.SUSPEND_COMPLETED,
          "a suspend completes only behind its committed archive; generation "
              + generation
              + " is not committed");
    }
    return releaseReservationFor(PhaseEvent.SUSPEND_COMPLETED).phase(to).build();
  }

  // ---- termination --------------------------------------------------------------------------

  /**
   * → TERMINATING. Requires the TERMINATED intent; closes admission and lists what cleanup is owed:
   * removing the runtime, revoking credentials and retaining the archive.
   */
  public Session startTerminate(Instant now) {
    if (!intent.isTerminal()) {
      throw refuse(PhaseEvent.TERMINATE_STARTED, "termination follows a TERMINATED intent only");
    }
    Phase to = Phase.TABLE.next(subject(), phase, PhaseEvent.TERMINATE_STARTED);
    List<Obligation> owed = new ArrayList<>(obligations);
    runtime.ifPresent(
        r ->
            owed.add(
                Obligation.pending(
                    ObligationAction.REMOVE_RUNTIME,
                    runtimeResource(r),
                    "remove the runtime and confirm it is gone")));
    owed.add(
        Obligation.pending(
            ObligationAction.REVOKE_CREDENTIALS,
            "session/" + id,
            "stop issuing credentials and revoke what can be revoked"));
    archive.ifPresent(
        a ->
            owed.add(
                Obligation.pending(
                    ObligationAction.RETAIN_ARCHIVE,
                    a.uri(),
                    "keep the last archive for the recovery window, then delete it")));
    return edit()
        .phase(to)
        .obligations(owed)
        .conditions(
            conditions.with(
                ConditionType.ADMITTING,
                ConditionStatus.FALSE,
                "Terminating",
                "the session is being terminated",
                now,
                intent.version()))
        .build();
  }

  /** This session with the open obligation of {@code action} on {@code resource} changed. */
  public Session withObligation(
      ObligationAction action, String resource, UnaryOperator<Obligation> change) {
    List<Obligation> next = new ArrayList<>(obligations.size());
    boolean found = false;
    for (Obligation o : obligations) {
      if (!found && o.action() == action && o.resource().equals(resource) && o.isOpen()) {
        next.add(change.apply(o));
        found = true;
      } else {
        next.add(o);
      }
    }
    if (!found) {
      throw new IllegalArgumentException(
          subject() + " owes no open " + action + " obligation on " + resource);
    }
    return edit().obligations(next).build();
  }

  /** The open obligation of {@code action}, if one is owed. */
  public Optional<Obligation> openObligation(ObligationAction action) {
    return obligations.stream().filter(o -> o.action() == action && o.isOpen()).findFirst();
  }

  /** Releases the reservation: only once removal of the runtime was confirmed. */
  public Session releaseReservation() {
    return releaseReservationFor(null).build();
  }

  /** TERMINATING → TERMINATED: the runtime is confirmed gone and the reservation released. */
  public Session completeTerminate() {
    Phase to = Phase.TABLE.next(subject(), phase, PhaseEvent.TERMINATE_COMPLETED);
    if (runtime.isPresent() || reservation != Reservation.RELEASED) {
      throw refuse(
          PhaseEvent.TERMINATE_COMPLETED,
          "termination completes only with the runtime confirmed gone and the reservation"
              + " released (runtime "
              + runtime.map(RuntimeRef::name).orElse("none")
              + ", reservation "
              + reservation
              + ")");
    }
    return edit().phase(to).build();
  }

  // ---- failure, activity, store -------------------------------------------------------------

  /** → FAILED with a specific reason. */
  public Session fail(Failure why) {
    Phase to = Phase.TABLE.next(subject(), phase, PhaseEvent.FAILED);
    return edit().phase(to).failure(Optional.of(why)).build();
  }

  /** Moves {@code lastAccess} forwards (never backwards). */
  @SuppressWarnings("ReferenceEquality") // touchedAt returns the same activity for an older time
  public Session touched(Instant at) {
    Activity next = activity.touchedAt(at);
    return next == activity ? this : edit().activity(next).build();
  }

  public Session withActivity(Activity next) {
    return edit().activity(next).build();
  }

  /** This session as stored at {@code storeVersion}; only store adapters call this. */
  public Session withVersion(long storeVersion) {
    return edit().version(storeVersion).build();
  }

  /** The obligation resource name of a runtime. */
  public static String runtimeResource(RuntimeRef runtime) {
    return "runtime/" + runtime.name();
  }

  private Builder releaseReservationFor(@Nullable PhaseEvent event) {
    if (runtime.isPresent()) {
      String rule =
          "the reservation is released only after removal of runtime "
              + runtime.get().name()
              + " is confirmed";
      throw event == null
          ? new IllegalTransitionException(
              "reservation of " + subject(),
              reservation.name(),
              Reservation.Event.RELEASE.name(),
              rule)
          : refuse(event, rule);
    }
    return edit()
        .reservation(Reservation.TABLE.next(subject(), reservation, Reservation.Event.RELEASE));
  }

  private RuntimeRef requireRuntime(String action) {
    return runtime.orElseThrow(
        () -> new IllegalStateException(subject() + " has no runtime to " + action));
  }

  private void requireArchive(PhaseEvent event) {
    if (archive.isEmpty()) {
      throw refuse(event, "restoring needs a committed archive and " + subject() + " has none");
    }
  }

  private IllegalTransitionException refuse(PhaseEvent event, String rule) {
    return new IllegalTransitionException(subject(), phase.name(), event.name(), rule);
  }

  private Builder edit() {
    return new Builder(this);
  }

  /** Copies a session field by field; private so that only lifecycle methods change one. */
  private static final class Builder {
    private final Session s;
    private Intent intent;
    private Phase phase;
    private Conditions conditions;
    private Optional<RuntimeRef> runtime;
    private long incarnation;
    private Optional<ArchiveRef> archive;
    private Reservation reservation;
    private List<Obligation> obligations;
    private Activity activity;
    private Optional<Failure> failure;
    private long version;

    Builder(Session s) {
      this.s = s;
      intent = s.intent;
      phase = s.phase;
      conditions = s.conditions;
      runtime = s.runtime;
      incarnation = s.incarnation;
      archive = s.archive;
      reservation = s.reservation;
      obligations = s.obligations;
      activity = s.activity;
      failure = s.failure;
      version = s.version;
    }

    Builder intent(Intent v) {
      intent = v;
      return this;
    }

    Builder phase(Phase v) {
      phase = v;
      return this;
    }

    Builder conditions(Conditions v) {
      conditions = v;
      return this;
    }

    Builder runtime(Optional<RuntimeRef> v) {
      runtime = v;
      return this;
    }

    Builder incarnation(long v) {
      incarnation = v;
      return this;
    }

    Builder archive(Optional<ArchiveRef> v) {
      archive = v;
      return this;
    }

    Builder reservation(Reservation v) {
      reservation = v;
      return this;
    }

    Builder obligations(List<Obligation> v) {
      obligations = v;
      return this;
    }

    Builder activity(Activity v) {
      activity = v;
      return this;
    }

    Builder failure(Optional<Failure> v) {
      failure = v;
      return this;
    }

    Builder version(long v) {
      version = v;
      return this;
    }

    Session build() {
      return new Session(
          s.id,
          s.tenant,
          s.name,
          s.workloadType,
          s.model,
          s.plugins,
          s.createdAt,
          intent,
          phase,
          conditions,
          runtime,
          incarnation,
          archive,
          reservation,
          obligations,
          activity,
          failure,
          version);
    }
  }
}
