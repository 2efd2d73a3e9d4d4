package dev.berth.core.access;

import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts client accesses ({@code lastAccess}) with at most one store write per session per {@link
 * #every()}: a typing user or a polling client sends many requests a second, and each touch used to
 * be a write transaction.
 *
 * <p>The first access after a quiet {@code every} is written at once; later ones within it are kept
 * here and written by {@link #flushDue} (the server runs it every {@code every}) or {@link #flush}
 * (the idle policy runs it before it decides). So a kept access follows a written one by less than
 * {@code every} (two intervals when a flush wrote the one before), and {@code every} is at most a
 * quarter of the idle threshold ({@link #intervalFor}), which the suspend threshold is never below:
 * no idle decision can turn on an access that is still kept, on this replica or another, and only a
 * written access can race with the idle policy's suspend — which is why {@link #accessed} says
 * whether it wrote, and why the caller then reads the session again. A write that fails is not
 * counted as one: the next access writes again, a failed flush keeps its access for the next. Reads
 * that answer a client ({@link #withPending}) show kept accesses too.
 */
public final class AccessLog {

  /** The default interval: idle thresholds are minutes, so a second of batching is invisible. */
  public static final Duration EVERY = Duration.ofSeconds(1);

  private final SessionStore store;
  private final Duration every;
  private final Map<SessionId, Entry> entries = new ConcurrentHashMap<>();

  /** The newest access written for a session, and a newer one kept here, if any. */
  private record Entry(Instant written, Optional<Instant> kept) {
    Instant newest() {
      return kept.filter(k -> k.isAfter(written)).orElse(written);
    }
  }

  /**
   * @param every at most one write per session per this; must be shorter than the idle policy's
   *     idle threshold (see the class comment)
   */
  public AccessLog(SessionStore store, Duration every) {
    if (every.isNegative()) {
      throw new IllegalArgumentException("the access interval must not be negative: " + every);
    }
    this.store = store;
    this.every = every;
  }

  /** Every access written at once (no batching): tests, and installations that want it. */
  public static AccessLog writeThrough(SessionStore store) {
    return new AccessLog(store, Duration.ZERO);
  }

  /**
   * The interval for idle thresholds as short as {@code idleAfter}: a quarter of it, at most 1 s.
   */
  public static Duration intervalFor(Duration idleAfter) {
    Duration quarter = idleAfter.dividedBy(4);
    return quarter.compareTo(EVERY) < 0 ? quarter : EVERY;
  }

  public Duration every() {
    return every;
  }

  /**
   * Counts an access at {@code at}.
   *
   * @return whether it was written to the store now (otherwise it is kept for the next flush)
   */
  public boolean accessed(SessionId id, Instant at) {
    boolean[] write = {false};
    Entry entry =
        entries.compute(
            id,
            (key, known) -> {
              if (known == null || !at.isBefore(known.written().plus(every))) {
                write[0] = true;
                Instant newest = known == null || at.isAfter(known.newest()) ? at : known.newest();
                return new Entry(newest, Optional.empty());
              }
              return new Entry(
                  known.written(), Optional.of(at.isAfter(known.newest()) ? at : known.newest()));
            });
    if (write[0]) {
      try {
        store.touch(id, entry.written());
      } catch (RuntimeException e) {
        // Not written after all: forgotten, so that the next access writes (and reads) again.
        entries.remove(id, entry);
        throw e;
      }
    }
    return write[0];
  }

  /** {@code s} with the newest access kept for it, if any is newer than what it holds. */
  public Session withPending(Session s) {
    Entry entry = entries.get(s.id());
    return entry == null ? s : s.withActivity(s.activity().touchedAt(entry.newest()));
  }

  /** Writes every kept access whose session's last write is at least {@code every} old. */
  public void flushDue(Instant now) {
    for (SessionId id : entries.keySet()) {
      flushIf(id, entry -> !now.isBefore(entry.written().plus(every)), Optional.of(now));
    }
  }

  /** Writes every kept access now. */
  public void flush() {
    for (SessionId id : entries.keySet()) {
      flushIf(id, entry -> true, Optional.empty());
    }
  }

  /**
   * Writes {@code id}'s kept access when {@code due}; forgets a session with nothing kept whose
   * last write is older than {@code every} at {@code now}, when given (the map holds recent
   * sessions only).
   */
  private void flushIf(
      SessionId id, java.util.function.Predicate<Entry> due, Optional<Instant> now) {
    Instant[] write = {null};
    entries.computeIfPresent(
        id,
        (key, entry) -> {
          if (entry.kept().isEmpty()) {
            boolean stale = now.filter(at -> !at.isBefore(entry.written().plus(every))).isPresent();
            return stale ? null : entry;
          }
          if (!due.test(entry)) {
            return entry;
          }
          write[0] = entry.newest();
          return new Entry(entry.newest(), Optional.empty());
        });
    if (write[0] != null) {
      try {
        store.touch(id, write[0]);
      } catch (RuntimeException e) {
        keepAgain(id, write[0]);
        throw e;
      }
    }
  }

  /** A kept access whose write failed is kept again, due at once, for the next flush. */
  private void keepAgain(SessionId id, Instant access) {
    entries.merge(
        id,
        new Entry(Instant.EPOCH, Optional.of(access)),
        (known, failed) ->
            new Entry(
                Instant.EPOCH,
                Optional.of(access.isAfter(known.newest()) ? access : known.newest())));
  }
}
