package dev.berth.server.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.error.QuotaExceededException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.tenant.Admission;
import dev.berth.core.tenant.Principal;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Several control planes on one PostgreSQL database, each with its own connection pools, as two
 * replicas are: they agree on the installation, one writer wins each race, and a tenant's quota
 * holds across them (without the admission lock, this race created three or more sessions in one of
 * three runs). A real PostgreSQL server run by the test JVM ({@link TestPostgres}).
 */
class PostgresReplicasTest {

  private static final Duration TTL = Duration.ofSeconds(30);
  private final MutableClock clock = MutableClock.at("2026-12-02T10:00:00Z");

  @Test
  void replicasStartingOnOneDatabaseAgreeOnTheInstallationTheFirstOneMinted() {
    PostgresLocation db = TestPostgres.freshDatabase();
    try (SqlSessionStore a = SqlSessionStore.openPostgres(db, clock);
        SqlSessionStore b = SqlSessionStore.openPostgres(db, clock)) {
      String first = a.installation(() -> "berth-aaaa");

      assertThat(first).isEqualTo("berth-aaaa");
      assertThat(b.installation(() -> "berth-bbbb")).isEqualTo("berth-aaaa");
      assertThat(a.installation(() -> "berth-cccc")).isEqualTo("berth-aaaa");
    }
  }

  @Test
  void twoStoresOnOneDatabaseLetExactlyOneWriterAndOneLeaseHolderWinEachRace() throws Exception {
    PostgresLocation db = TestPostgres.freshDatabase();
    try (SqlSessionStore a = SqlSessionStore.openPostgres(db, clock);
        SqlSessionStore b = SqlSessionStore.openPostgres(db, clock)) {
      TwoStoreRace.oneWriterAndOneLeaseHolderWinEachRound(a, b, clock, TTL);
    }
  }

  @Test
  void aQuotaOfTwoHoldsWhenTwelveCreatesRaceOverTwoReplicas() throws Exception {
    PostgresLocation db = TestPostgres.freshDatabase();
    TenantId acme = new TenantId("acme");
    ExecutorService pool = Executors.newFixedThreadPool(12);
    try (SqlSessionStore a = SqlSessionStore.openPostgres(db, clock);
        SqlSessionStore b = SqlSessionStore.openPostgres(db, clock)) {
      SqlTenantDirectory.sharing(a)
          .upsertTenant(new Tenant(acme, Set.of(WorkloadType.SHELL), 2, clock.instant()));
      List<Replica> replicas =
          List.of(
              new Replica(a, new Admission(SqlTenantDirectory.sharing(a), lockOf(a))),
              new Replica(b, new Admission(SqlTenantDirectory.sharing(b), lockOf(b))));
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> creates = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        Replica r = replicas.get(i % 2);
        creates.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    r.admission()
                        .admit(
                            Principal.tenant(acme),
                            WorkloadType.SHELL,
                            acme,
                            r.store(),
                            () -> r.store().create(TestSessions.requested(acme, clock.instant())));
                    return true;
                  } catch (QuotaExceededException refused) {
                    return false;
                  }
                }));
      }
      start.countDown();

      assertThat(TwoStoreRace.winners(creates)).isEqualTo(2);
      assertThat(a.list(SessionQuery.all(100).forTenant(acme)).items()).hasSize(2);
    } finally {
      pool.shutdownNow();
    }
  }

  private static SqlAdmissionLock lockOf(SqlSessionStore store) {
    return SqlAdmissionLock.sharing(store);
  }

  private record Replica(SqlSessionStore store, Admission admission) {}
}
