package dev.berth.core.tenant;

import dev.berth.core.error.ForbiddenException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.QuotaExceededException;
import dev.berth.core.error.WorkloadNotAllowedException;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Principal.Admin;
import dev.berth.core.tenant.Principal.TenantPrincipal;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Who may create and see which sessions. The session service asks before it acts; nothing here
 * knows HTTP.
 *
 * <ul>
 *   <li>The administrator sees every session and may create for any existing tenant, unbound by
 *       that tenant's grants and quota (it sets them, and can raise them). When it names no tenant,
 *       its sessions belong to the reserved tenant {@link TenantId#ADMIN}.
 *   <li>A tenant sees and creates only its own sessions, only of the workload types it was granted,
 *       and while it holds fewer than {@code maxSessions} sessions whose reservation is HELD or
 *       UNCERTAIN.
 * </ul>
 *
 * <p>Counting and creating are two steps, so two creates of one tenant racing each other could both
 * see room for one more. {@link #admit} closes that gap within this process by running the count,
 * the checks and the create under a per-tenant lock, and between the processes sharing one store by
 * its {@link AdmissionLock} (taken inside the process's own, so that a process queues its own
 * creates before it asks the store). Thread-safe.
 */
public final class Admission {

  private static final int COUNT_PAGE = SessionQuery.MAX_LIMIT;

  private final TenantDirectory directory;
  private final ConcurrentMap<TenantId, ReentrantLock> createLocks = new ConcurrentHashMap<>();

  private final AdmissionLock acrossProcesses;

  /** Admission for the only process using its store. */
  public Admission(TenantDirectory directory) {
    this(directory, AdmissionLock.SOLE_PROCESS);
  }

  /**
   * @param acrossProcesses excludes the other processes sharing the store while a tenant's create
   *     is counted and made
   */
  public Admission(TenantDirectory directory, AdmissionLock acrossProcesses) {
    this.directory = Objects.requireNonNull(directory, "directory");
    this.acrossProcesses = Objects.requireNonNull(acrossProcesses, "acrossProcesses");
  }

  /**
   * The tenant a new session of {@code principal} belongs to: the administrator's choice, or {@link
   * TenantId#ADMIN} when it names none; a tenant's own (naming itself is allowed).
   *
   * @throws ForbiddenException when a tenant names another tenant
   */
  public TenantId tenantFor(Principal principal, Optional<TenantId> requested) {
    return switch (principal) {
      case Admin a -> requested.orElse(TenantId.ADMIN);
      case TenantPrincipal(TenantId own) -> {
        if (requested.isPresent() && !requested.get().equals(own)) {
          throw actingForAnother(own, "create sessions for", requested.get());
        }
        yield own;
      }
    };
  }

  /**
   * Whose sessions a list of {@code principal} shows: empty means every tenant's (the administrator
   * without a filter), else one tenant's.
   *
   * @throws ForbiddenException when a tenant asks for another tenant's sessions
   */
  public Optional<TenantId> listScope(Principal principal, Optional<TenantId> requested) {
    return switch (principal) {
      case Admin a -> requested;
      case TenantPrincipal(TenantId own) -> {
        if (requested.isPresent() && !requested.get().equals(own)) {
          throw actingForAnother(own, "list sessions of", requested.get());
        }
        yield Optional.of(own);
      }
    };
  }

  /**
   * Whether {@code principal} may see a session of {@code owner}. When it may not, answer exactly
   * as for a session that does not exist.
   */
  public boolean maySee(Principal principal, TenantId owner) {
    return switch (principal) {
      case Admin a -> true;
      case TenantPrincipal(TenantId own) -> own.equals(owner);
    };
  }

  /**
   * Refuses everyone but the administrator.
   *
   * @param action what was asked, such as {@code issue tenant tokens}
   * @throws ForbiddenException when {@code principal} is a tenant
   */
  public void requireAdmin(Principal principal, String action) {
    if (principal instanceof TenantPrincipal(TenantId own)) {
      throw new ForbiddenException(
          "tenant " + own, action, "only the administrator may; use the admin token");
    }
  }

  /**
   * Checks that {@code principal} may create a session of {@code type} for {@code target} while
   * {@code target} holds {@code heldSessions} sessions. Checked in this order: the tenant, the
   * workload type, the quota.
   *
   * @throws ForbiddenException when a tenant creates for another tenant
   * @throws WorkloadNotAllowedException when the tenant was not granted {@code type}
   * @throws QuotaExceededException when the tenant already holds {@code maxSessions} sessions
   * @throws InvalidValueException when the administrator names a tenant that does not exist
   */
  public void checkMayCreate(
      Principal principal, WorkloadType type, TenantId target, int heldSessions) {
    grantsFor(principal, type, target).ifPresent(t -> checkQuota(t, heldSessions));
  }

  /**
   * Runs {@link #checkMayCreate} with the count from {@link #held} and then {@code create}, all
   * under {@code target}'s lock, so that concurrent creates of one tenant in this process cannot
   * together exceed its quota.
   *
   * @return what {@code create} returned
   * @throws RuntimeException what {@link #checkMayCreate} throws, before {@code create} runs
   */
  public <T> T admit(
      Principal principal,
      WorkloadType type,
      TenantId target,
      SessionStore store,
      Supplier<T> create) {
    return admit(principal, type, target, store, Optional.empty(), create);
  }

  /**
   * As {@link #admit(Principal, WorkloadType, TenantId, SessionStore, Supplier)} for the restore of
   * snapshot {@code resumed}: the slot it asks for is not counted against it (two requests that
   * restore one snapshot at once take one slot, not two).
   */
  public <T> T admitResume(
      Principal principal,
      WorkloadType type,
      TenantId target,
      SessionStore store,
      SessionId resumed,
      Supplier<T> resume) {
    return admit(principal, type, target, store, Optional.of(resumed), resume);
  }

  private <T> T admit(
      Principal principal,
      WorkloadType type,
      TenantId target,
      SessionStore store,
      Optional<SessionId> excluded,
      Supplier<T> create) {
    Optional<Tenant> limited = grantsFor(principal, type, target);
    if (limited.isEmpty()) {
      return create.get();
    }
    ReentrantLock lock = createLocks.computeIfAbsent(target, t -> new ReentrantLock());
    lock.lock();
    try {
      return acrossProcesses.holding(
          target,
          () -> {
            checkQuota(limited.get(), heldBy(store, target, excluded));
            return create.get();
          });
    } finally {
      lock.unlock();
    }
  }

  /**
   * How many sessions of {@code tenant} hold a reservation (HELD or UNCERTAIN): the number its
   * quota limits. Pages through every session of the tenant.
   */
  public static int held(SessionStore store, TenantId tenant) {
    return heldBy(store, tenant, Optional.empty());
  }

  /**
   * A snapshot asked to run again holds its slot already: its reservation is taken only when the
   * reconciler starts the restore, and two resumes admitted in between must not both fit.
   */
  private static boolean resumeRequested(Session s) {
    return s.phase() == dev.berth.core.session.Phase.SUSPENDED
        && s.intent().desired() == dev.berth.core.session.DesiredState.RUNNING;
  }

  private static int heldBy(SessionStore store, TenantId tenant, Optional<SessionId> excluded) {
    int[] held = {0};
    store.forEach(
        SessionQuery.all(COUNT_PAGE).forTenant(tenant),
        s -> {
          boolean holds =
              s.reservation() == Reservation.HELD
                  || s.reservation() == Reservation.UNCERTAIN
                  || resumeRequested(s);
          if (holds && excluded.filter(s.id()::equals).isEmpty()) {
            held[0]++;
          }
        });
    return held[0];
  }

  /** The tenant whose grants and quota bind this create, or empty when none do (the admin). */
  private Optional<Tenant> grantsFor(Principal principal, WorkloadType type, TenantId target) {
    switch (principal) {
      case Admin a -> {
        if (!target.equals(TenantId.ADMIN) && directory.tenant(target).isEmpty()) {
          throw new InvalidValueException(
              "tenant "
                  + target
                  + " does not exist: issue it a token first (POST /api/v1/admin/tokens), or"
                  + " name no tenant to create the session as the administrator's own");
        }
        return Optional.empty();
      }
      case TenantPrincipal(TenantId own) -> {
        if (!own.equals(target)) {
          throw actingForAnother(own, "create sessions for", target);
        }
        Tenant tenant =
            directory
                .tenant(own)
                .orElseThrow(
                    () ->
                        new ForbiddenException(
                            "tenant " + own,
                            "create sessions",
                            "the tenant has no record any more; ask the administrator to issue"
                                + " it a new token"));
        if (!tenant.grants(type)) {
          throw new WorkloadNotAllowedException(
              own.value(), type.value(), tenant.workloadTypeNames());
        }
        return Optional.of(tenant);
      }
    }
  }

  private static void checkQuota(Tenant tenant, int heldSessions) {
    if (heldSessions >= tenant.maxSessions()) {
      throw new QuotaExceededException(tenant.id().value(), heldSessions, tenant.maxSessions());
    }
  }

  private static ForbiddenException actingForAnother(TenantId own, String action, TenantId other) {
    return new ForbiddenException(
        "tenant " + own,
        action + " tenant " + other,
        "a tenant token acts only for its own tenant; name no tenant, or use the admin token");
  }
}
