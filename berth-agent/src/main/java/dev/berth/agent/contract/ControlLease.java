package dev.berth.agent.contract;

import dev.berth.core.error.InvalidValueException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's control lease and the local limits that bound its workload when the control plane
 * is gone (reliability ).
 *
 * <p>Lease: the control plane renews it with a time to live; a lease that was never granted never
 * expires. From its expiry time on (an instant {@code t} with {@code t >= expiresAt}) admission is
 * closed ({@link #admitting()} is false) until the next renewal, and the disconnect policy decides
 * the workload's fate: {@link DisconnectPolicy#STOP} stops it at the first {@link #tick()} at or
 * after expiry, {@link DisconnectPolicy#CONTINUE} keeps it until {@code expiresAt +
 * disconnectGrace}. A renewal before then keeps it running. A renewal after the workload was
 * stopped reopens admission (the control plane may then remove the runtime) but does not restart
 * anything.
 *
 * <p>Maximum lifetime: counted from this object's creation on the monotonic {@code nanoTime}
 * source, not the wall clock, so a clock step can neither extend nor cut it; when reached, the
 * workload is stopped whatever the lease says.
 *
 * <p>Time: lease decisions use the injected {@link Clock} because {@code expiresAt} is reported as
 * an instant. Nothing acts by itself: {@link #tick()} evaluates the rules and the host calls it
 * periodically, see {@link #schedule}.
 *
 * <p>Concurrency: a lock guards the phase, the expiry and the stop latch; {@code stopWorkload} runs
 * outside it, at most once, on the thread whose tick set the latch.
 */
public final class ControlLease {

  public static final String LEASE_EXPIRED = "LEASE_EXPIRED";
  public static final String MAX_LIFETIME_EXCEEDED = "MAX_LIFETIME_EXCEEDED";
  public static final Duration MIN_TTL = Duration.ofSeconds(1);
  public static final Duration MAX_TTL = Duration.ofHours(1);

  private static final Logger LOG = LoggerFactory.getLogger(ControlLease.class);

  private final Clock clock;
  private final LongSupplier nanoTime;
  private final DisconnectPolicy policy;
  private final Duration disconnectGrace;
  private final Optional<Duration> maxLifetime;
  private final long maxLifetimeNanos;
  private final long bornNanos;
  private final Runnable stopWorkload;
  private final Consumer<String> onStopReason;
  private final ReentrantLock lock = new ReentrantLock();
  private LeaseTable.Phase phase = LeaseTable.Phase.NONE;
  private Optional<Instant> expiresAt = Optional.empty();
  private Optional<Instant> renewedAt = Optional.empty();
  private Optional<Duration> ttl = Optional.empty();
  private Optional<String> stopReason = Optional.empty();

  public ControlLease(
      Clock clock,
      DisconnectPolicy policy,
      Duration disconnectGrace,
      Optional<Duration> maxLifetime,
      Runnable stopWorkload) {
    this(clock, policy, disconnectGrace, maxLifetime, stopWorkload, reason -> {});
  }

  public ControlLease(
      Clock clock,
      DisconnectPolicy policy,
      Duration disconnectGrace,
      Optional<Duration> maxLifetime,
      Runnable stopWorkload,
      Consumer<String> onStopReason) {
    this(clock, System::nanoTime, policy, disconnectGrace, maxLifetime, stopWorkload, onStopReason);
  }

  /**
   * @param nanoTime the monotonic source the maximum lifetime is counted on ({@code
   *     System::nanoTime} in production)
   * @param onStopReason told the reason just before {@code stopWorkload} runs
   */
  public ControlLease(
      Clock clock,
      LongSupplier nanoTime,
      DisconnectPolicy policy,
      Duration disconnectGrace,
      Optional<Duration> maxLifetime,
      Runnable stopWorkload,
      Consumer<String> onStopReason) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.disconnectGrace = nonNegative(disconnectGrace);
    this.maxLifetime = positive(maxLifetime);
    this.maxLifetimeNanos = maxLifetime.map(ControlLease::saturatedNanos).orElse(Long.MAX_VALUE);
    this.stopWorkload = Objects.requireNonNull(stopWorkload, "stopWorkload");
    this.onStopReason = Objects.requireNonNull(onStopReason, "onStopReason");
    this.bornNanos = nanoTime.getAsLong();
  }

  /**
   * Ticks {@code lease} every {@code period} on {@code executor} until the returned future is
   * cancelled. A tick that throws (a failing stop) is logged and does not end the schedule.
   */
  public static ScheduledFuture<?> schedule(
      ControlLease lease, ScheduledExecutorService executor, Duration period) {
    if (period.isNegative() || period.isZero()) {
      throw new InvalidValueException("lease tick period must be positive, was " + period);
    }
    long nanos = period.toNanos();
    return executor.scheduleWithFixedDelay(lease::tickLogged, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Grants or extends the lease until now + {@code ttl} and reopens admission.
   *
   * @return the new expiry time
   * @throws InvalidValueException when {@code ttl} is outside {@link #MIN_TTL}..{@link #MAX_TTL}
   */
  public Instant renew(Duration ttl) {
    checkTtl(ttl);
    lock.lock();
    try {
      var now = clock.instant();
      observe(now);
      phase = LeaseTable.TABLE.next("control lease", phase, LeaseTable.Event.RENEW);
      var until = now.plus(ttl);
      expiresAt = Optional.of(until);
      renewedAt = Optional.of(now);
      this.ttl = Optional.of(ttl);
      return until;
    } finally {
      lock.unlock();
    }
  }

  /** The lease as of now. */
  public LeaseState state() {
    lock.lock();
    try {
      observe(clock.instant());
      return switch (phase) {
        case NONE -> new LeaseState.None();
        case HELD -> new LeaseState.Held(expiresAt.orElseThrow());
        case EXPIRED -> new LeaseState.Expired(expiresAt.orElseThrow());
      };
    } finally {
      lock.unlock();
    }
  }

  /**
   * The lease's terms as of now: its state, the last renewal and its time to live, the disconnect
   * policy, its grace and the maximum lifetime. What the status route reports, so that the control
   * plane and its users see the contract the workload is held to.
   */
  public LeaseTerms terms() {
    lock.lock();
    try {
      return new LeaseTerms(
          state(), renewedAt, ttl, policy, disconnectGrace, maxLifetime, stopReason);
    } finally {
      lock.unlock();
    }
  }

  /** Whether commands are admitted: false from the lease's expiry until its next renewal. */
  public boolean admitting() {
    return !(state() instanceof LeaseState.Expired);
  }

  /**
   * Refuses a command while admission is closed. The lease renewal itself must not be checked.
   *
   * @throws LeaseExpiredException naming the expiry, the policy and the way out
   */
  public void checkAdmitting() {
    if (state() instanceof LeaseState.Expired expired) {
      throw new LeaseExpiredException(
          "the control lease expired at "
              + expired.at()
              + " and the host closed admission (disconnect policy "
              + policy.label()
              + stopReason().map(r -> ", workload stopped: " + r).orElse("")
              + "); renew the lease (POST lease) before sending commands");
    }
  }

  /** Why the workload was stopped: {@value #LEASE_EXPIRED} or {@value #MAX_LIFETIME_EXCEEDED}. */
  public Optional<String> stopReason() {
    lock.lock();
    try {
      return stopReason;
    } finally {
      lock.unlock();
    }
  }

  public DisconnectPolicy policy() {
    return policy;
  }

  public Duration disconnectGrace() {
    return disconnectGrace;
  }

  public Optional<Duration> maxLifetime() {
    return maxLifetime;
  }

  /**
   * Applies the rules as of now: expires the lease when due and stops the workload when the maximum
   * lifetime is reached or the disconnect policy says so. The workload is stopped at most once.
   */
  public void tick() {
    String reason;
    lock.lock();
    try {
      observe(clock.instant());
      if (stopReason.isPresent()) {
        return;
      }
      var due = dueStop(clock.instant());
      if (due.isEmpty()) {
        return;
      }
      reason = due.get();
      stopReason = due;
    } finally {
      lock.unlock();
    }
    LOG.warn("stopping the workload: {}", reason);
    try {
      onStopReason.accept(reason);
    } finally {
      stopWorkload.run();
    }
  }

  private void tickLogged() {
    try {
      tick();
    } catch (RuntimeException e) {
      LOG.error("control lease tick failed; the next tick runs as scheduled", e);
    }
  }

  private Optional<String> dueStop(Instant now) {
    if (maxLifetime.isPresent() && nanoTime.getAsLong() - bornNanos >= maxLifetimeNanos) {
      return Optional.of(MAX_LIFETIME_EXCEEDED);
    }
    if (phase != LeaseTable.Phase.EXPIRED) {
      return Optional.empty();
    }
    boolean due =
        switch (policy) {
          case STOP -> true;
          case CONTINUE -> !now.isBefore(expiresAt.orElseThrow().plus(disconnectGrace));
        };
    return due ? Optional.of(LEASE_EXPIRED) : Optional.empty();
  }

  private void observe(Instant now) {
    if (phase == LeaseTable.Phase.HELD && !now.isBefore(expiresAt.orElseThrow())) {
      phase = LeaseTable.TABLE.next("control lease", phase, LeaseTable.Event.EXPIRE);
    }
  }

  private static void checkTtl(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
      throw new InvalidValueException(
          "lease ttl must be between "
              + MIN_TTL.toSeconds()
              + " s and "
              + MAX_TTL.toSeconds()
              + " s, was "
              + ttl.toMillis()
              + " ms; send ttlSeconds in that range");
    }
  }

  private static Duration nonNegative(Duration grace) {
    Objects.requireNonNull(grace, "disconnectGrace");
    if (grace.isNegative()) {
      throw new InvalidValueException("disconnect grace must not be negative, was " + grace);
    }
    return grace;
  }

  private static Optional<Duration> positive(Optional<Duration> lifetime) {
    Objects.requireNonNull(lifetime, "maxLifetime");
    lifetime.ifPresent(
        d -> {
          if (d.isNegative() || d.isZero()) {
            throw new InvalidValueException("max lifetime must be positive, was " + d);
          }
        });
    return lifetime;
  }

  private static long saturatedNanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
