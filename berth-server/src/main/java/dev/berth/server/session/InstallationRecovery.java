package dev.berth.server.session;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.lifecycle.RecoveryMode;
import dev.berth.core.lifecycle.RecoveryReport;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeListing;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.SessionStore;
import dev.berth.core.store.StoreEpochs;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store epoch and recovery mode of one control plane (docs/operations.md, "Restoring a store
 * backup").
 *
 * <p>At start, before anything is commanded, it reads the high-water marks the runtimes and the
 * archive store keep and compares them with the store's epoch <em>before</em> advancing it: a mark
 * above it means the store was restored from an older backup. Then, and on every {@link #tick}, and
 * when a reconcile pass finds a runtime ahead of its session's intent ({@link #runtimeAhead}), a
 * store found older puts the control plane in recovery mode: the epoch is raised past every mark
 * (so no fencing token is issued twice), recovery mode is recorded in the store (so a restart keeps
 * it), {@link RecoveryMode} is held (admission closed, reconcilers idle: nothing deleted, nothing
 * released), and the store recovery runs (newer intents adopted, unknown runtimes and their
 * archives quarantined, nothing deleted). Only {@link #approve} ends it.
 *
 * <p>While no recovery is on, one replica ({@link ReplicaDuty}) advances the epoch every tick, and
 * every replica stamps the newest epoch on its commands.
 */
public final class InstallationRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(InstallationRecovery.class);

  /** How often the epoch advances and the marks are read again while the control plane runs. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);

  /** The duty of advancing the epoch: one replica at a time. */
  public static final String DUTY = "store-epoch";

  /**
   * What recovery works on.
   *
   * @param stamp told each newer epoch, to stamp it on every command to the runtimes from then on
   * @param recovery runs one store recovery (adopt, quarantine) and says what it did
   * @param sources where the high-water marks are read
   * @param holder names this control plane in the audit log
   */
  public record Ports(
      StoreEpochs epochs,
      SessionStore store,
      Runtime runtime,
      ArchiveStore archives,
      java.util.function.LongConsumer stamp,
      RecoveryMode mode,
      Supplier<RecoveryReport> recovery,
      List<HighWaterMark.Source> sources,
      String installation,
      String holder,
      InstantSource clock) {
    public Ports {
      sources = List.copyOf(sources);
    }
  }

  private final Ports ports;
  private volatile RecoveryFindings findings = RecoveryFindings.none(0, List.of());

  public InstallationRecovery(Ports ports) {
    this.ports = ports;
  }

  /** What recovery found and did; inactive, with the marks last read, when it never began. */
  public RecoveryFindings findings() {
    RecoveryFindings now = findings;
    return now.active() == ports.mode().held() ? now : withActive(now, ports.mode().held());
  }

  /** Whether recovery mode is on: creates are refused meanwhile. */
  public boolean active() {
    return ports.mode().active();
  }

  /**
   * At the control plane's start, before the reconcilers run: finds out whether the store is older
   * than what the runtimes and archives saw (or was left in recovery mode), then advances the epoch
   * and stamps it on every command from now on.
   */
  public synchronized void start() {
    long before = ports.epochs().current();
    List<HighWaterMark> marks = read();
    long highest = highest(marks);
    if (highest > before) {
      enter(older(before, marks), before, marks);
    } else if (ports.epochs().recoverySince().isPresent()) {
      enter(
          "recovery mode was on when the control plane stopped, and no one ended it",
          before,
          marks);
    } else {
      ports.stamp().accept(ports.epochs().advance());
      findings = RecoveryFindings.none(before, marks);
    }
  }

  /**
   * One periodic turn: the marks read again (a store swapped under a running control plane), the
   * epoch advanced by the replica holding {@code duty}, and the newest epoch stamped.
   */
  public synchronized void tick(ReplicaDuty duty) {
    boolean recordedInStore = ports.epochs().recoverySince().isPresent();
    if (ports.mode().held()) {
      if (!recordedInStore) {
        ports.mode().release();
        findings = findings.approved(ports.clock().instant(), "another replica");
        LOG.warn("recovery mode ended: another replica's approval was recorded in the store");
      }
      return;
    }
    List<HighWaterMark> marks = read();
    long now = ports.epochs().current();
    if (highest(marks) > now) {
      enter(older(now, marks), now, marks);
      return;
    }
    if (recordedInStore) {
      enter("another replica entered recovery mode", now, marks);
      return;
    }
    var unused = duty.perform(() -> ports.stamp().accept(ports.epochs().advance()));
    ports.stamp().accept(ports.epochs().current());
  }

  /**
   * Runs {@link #tick} every {@code interval} on a daemon thread until the returned handle is
   * closed; a turn that fails is logged and the next one comes.
   */
  public AutoCloseable schedule(Duration interval, ReplicaDuty duty) {
    var ticker =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("berth-store-epoch").unstarted(r));
    var unused =
        ticker.scheduleWithFixedDelay(
            () -> {
              try {
                tick(duty);
              } catch (RuntimeException e) {
                LOG.warn("store epoch turn failed; the next comes in {}", interval, e);
              }
            },
            interval.toMillis(),
            interval.toMillis(),
            java.util.concurrent.TimeUnit.MILLISECONDS);
    return ticker::shutdownNow;
  }

  /** A reconcile pass found {@code session}'s runtime ahead of the intent the store holds. */
  public synchronized void runtimeAhead(SessionId session) {
    if (ports.mode().held()) {
      return;
    }
    enter(
        "session " + session.value() + "'s runtime accepted a newer intent than the store holds",
        ports.epochs().current(),
        read());
  }

  /**
   * Ends recovery mode, for a person who looked at the findings: the reconcilers act again, the
   * quarantined runtimes and archives stay where they are. Audited.
   *
   * @return the findings, now approved
   * @throws IllegalStateException when recovery mode is not on
   */
  public synchronized RecoveryFindings approve(String actor) {
    if (!ports.mode().held()) {
      throw new IllegalStateException(
          "recovery mode is not on; GET /api/v1/admin/recovery shows what the last one found");
    }
    Instant now = ports.clock().instant();
    RecoveryFindings found = findings;
    ports
        .store()
        .append(
            new AuditEvent(
                0,
                Optional.empty(),
                now,
                actor,
                "recovery.approved",
                "ended recovery mode begun "
                    + found.since().map(Instant::toString).orElse("?")
                    + " ("
                    + found.reason()
                    + "); adopted "
                    + found.adopted().size()
                    + ", quarantined runtimes "
                    + found.quarantinedRuntimes()
                    + ", quarantined archives "
                    + found.quarantinedArchives()));
    ports.epochs().endRecovery();
    ports.mode().release();
    findings = found.approved(now, actor);
    LOG.warn("recovery mode ended by {}: admission is open and the reconcilers act again", actor);
    return findings;
  }

  private void enter(String reason, long storeEpoch, List<HighWaterMark> marks) {
    // Past every epoch seen before the store went back, so no fencing token is issued twice.
    ports.epochs().raise(Math.max(storeEpoch, highest(marks)));
    ports.stamp().accept(ports.epochs().advance());
    Instant since = ports.epochs().beginRecovery(ports.clock().instant());
    ports.mode().hold();
    LOG.error(
        "RECOVERY MODE: {}. Admission is closed and nothing is deleted or released until a person"
            + " approves: read GET /api/v1/admin/recovery (berth admin recovery), then POST"
            + " /api/v1/admin/recovery/approve (berth admin recovery approve)",
        reason);
    RecoveryReport report = ports.recovery().get();
    List<String> archives = quarantinedArchives();
    findings =
        new RecoveryFindings(
            true,
            Optional.of(since),
            reason,
            storeEpoch,
            marks,
            report.adopted(),
            report.quarantined(),
            archives,
            report.unreachable(),
            Optional.empty(),
            Optional.empty());
    LOG.warn(
        "recovery found: adopted {}, quarantined runtimes {}, quarantined archives {}, unreachable"
            + " {}",
        report.adopted(),
        report.quarantined(),
        archives,
        report.unreachable());
  }

  private static String older(long storeEpoch, List<HighWaterMark> marks) {
    return "the store's epoch "
        + storeEpoch
        + " is below what was seen since ("
        + String.join(", ", marks.stream().map(m -> m.source() + " saw " + m.epoch()).toList())
        + "): the store was restored from an older backup";
  }

  /** The archives of sessions the store has no record of, found by the runtimes' labels. */
  private List<String> quarantinedArchives() {
    List<String> archives = new ArrayList<>();
    for (RuntimeListing listing : listRuntimes()) {
      SessionId session = listing.labels().session();
      if (listing.labels().installation().equals(ports.installation())
          && ports.store().get(session).isEmpty()) {
        try {
          ports.archives().list(session).stream().map(ArchiveRef::uri).forEach(archives::add);
        } catch (RuntimeException e) {
          LOG.warn(
              "cannot list the archives of unknown session {}: {}", session.value(), e.toString());
        }
      }
    }
    return archives;
  }

  private List<RuntimeListing> listRuntimes() {
    try {
      return ports.runtime().list();
    } catch (RuntimeException e) {
      LOG.warn("cannot list the runtimes to find quarantined archives: {}", e.toString());
      return List.of();
    }
  }

  private List<HighWaterMark> read() {
    List<HighWaterMark> marks = new ArrayList<>();
    for (HighWaterMark.Source source : ports.sources()) {
      try {
        marks.add(new HighWaterMark(source.name(), source.read().getAsLong()));
      } catch (RuntimeException e) {
        LOG.warn(
            "cannot read the store epoch {} saw ({}); it is read again in a while",
            source.name(),
            e.toString());
      }
    }
    return marks;
  }

  private static long highest(List<HighWaterMark> marks) {
    return marks.stream().mapToLong(HighWaterMark::epoch).max().orElse(0);
  }

  private static RecoveryFindings withActive(RecoveryFindings f, boolean active) {
    return new RecoveryFindings(
        active,
        f.since(),
        f.reason(),
        f.storeEpoch(),
        f.marks(),
        f.adopted(),
        f.quarantinedRuntimes(),
        f.quarantinedArchives(),
        f.unreachable(),
        f.approvedAt(),
        f.approvedBy());
  }
}
