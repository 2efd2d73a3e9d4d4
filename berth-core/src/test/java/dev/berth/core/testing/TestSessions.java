package dev.berth.core.testing;

import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.ConditionStatus;
import dev.berth.core.session.ConditionType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Failure;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;

/** Test data: sessions built through their own lifecycle methods, never by hand. */
public final class TestSessions {
  private static final SplittableRandom IDS = new SplittableRandom(42);

  private TestSessions() {}

  public static synchronized SessionId newId() {
    return SessionId.generate(IDS);
  }

  public static Session requested(Instant now) {
    return requested(new TenantId("acme"), now);
  }

  public static Session requested(TenantId tenant, Instant now) {
    return Session.request(newId(), tenant, "work", WorkloadType.SHELL, now, "tester");
  }

  /** A READY session with every readiness condition true. */
  public static Session ready(Instant now) {
    return makeReady(requested(now).startProvision("sim", now), now);
  }

  public static Session makeReady(Session provisioning, Instant now) {
    Session s = provisioning.runtimeObserved(now, java.util.Optional.of("http://127.0.0.1:1"));
    for (ConditionType type :
        List.of(
            ConditionType.RUNTIME_READY,
            ConditionType.POLICY_APPLIED,
            ConditionType.IDENTITY_BOUND,
            ConditionType.WORKSPACE_READY)) {
      s = s.withCondition(type, ConditionStatus.TRUE, "Test", "set by the test", now);
    }
    return s.becomeReady(now);
  }

  /**
   * A session that exercises every field: terminated after a suspend and a failure, with
   * conditions, an archive, obligations, keep-alive and busy activity. For round-trip tests.
   */
  public static Session everyField(Instant now) {
    Session s = ready(now).touched(now.plus(Duration.ofSeconds(5)));
    s =
        s.withActivity(
            new dev.berth.core.session.Activity(
                s.activity().lastAccess(),
                java.util.Optional.of(now.plusSeconds(600)),
                java.util.Optional.of(now.plusSeconds(1))));
    s =
        s.withIntent(DesiredState.SUSPENDED, now, "idle-policy", "idle for 60m")
            .startSuspend(now)
            .archiveCommitted(
                new ArchiveRef(
                        1,
                        "file:///archives/a/1.tar.zst",
                        1234,
                        "ab".repeat(32),
                        now,
                        List.of("home", "output", "shell-state"))
                    .takenFrom("berth-everyfield-1")
                    .withSkipped(List.of(new ArchiveRef.Skipped("home/pipe", "fifo"))))
            .runtimeGone(now, "Suspended", "removed")
            .completeSuspend(1);
    s =
        s.withIntent(DesiredState.RUNNING, now, "user", "read")
            .startResume("sim", now)
            .fail(new Failure(FailureReason.ARCHIVE_CORRUPT, "digest mismatch in home/x"));
    return s.withIntent(DesiredState.TERMINATED, now, "user", "delete").startTerminate(now);
  }
}
