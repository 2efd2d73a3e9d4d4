package dev.berth.server.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import dev.berth.store.CorruptRecordException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the SQLite tenant directory does with the store's file: reopening, sharing, corrupt rows.
 */
class SqliteTenantDirectoryFileTest {
  private static final TenantId ACME = new TenantId("acme");

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00.123456789Z");

  private Path file() {
    return dir.resolve("state").resolve("berth.db");
  }

  private Tenant acme() {
    return new Tenant(
        ACME, Set.of(WorkloadType.SHELL, new WorkloadType("claude-code")), 3, clock.instant());
  }

  private void sql(String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  @Test
  void tenantsAndTokensSurviveReopeningTheFileBesideTheSessions() {
    TokenRecord token = new TokenRecord(TokenDigest.of("t"), ACME, clock.instant());
    Session session = TestSessions.requested(ACME, clock.instant());
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SqlTenantDirectory directory = SqlTenantDirectory.sharing(store);
      directory.upsertTenant(acme());
      directory.addToken(token);
      store.create(session);
    }
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SqlTenantDirectory directory = SqlTenantDirectory.sharing(store);
      assertThat(directory.tenant(ACME)).contains(acme());
      assertThat(directory.findToken(TokenDigest.of("t"))).contains(token);
      assertThat(store.get(session.id())).isPresent();
    }
  }

  @Test
  void storesOnlyTheDigestOfAToken() throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SqlTenantDirectory directory = SqlTenantDirectory.sharing(store);
      directory.upsertTenant(acme());
      directory.addToken(
          new TokenRecord(TokenDigest.of("clear-secret-value"), ACME, clock.instant()));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT digest FROM api_tokens")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo(TokenDigest.of("clear-secret-value").hex());
    }
  }

  @Test
  void aTenantRowWithAnUnknownWorkloadTypeNameIsReportedAsCorruptNotAbsent() throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SqlTenantDirectory.sharing(store).upsertTenant(acme());
    }
    sql("UPDATE tenants SET workload_types = 'shell Not-A-Type' WHERE id = 'acme'");
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SqlTenantDirectory directory = SqlTenantDirectory.sharing(store);
      assertThatThrownBy(() -> directory.tenant(ACME))
          .isInstanceOf(CorruptRecordException.class)
          .hasMessageContaining("tenant acme")
          .hasMessageContaining("Not-A-Type");
      assertThatThrownBy(directory::tenants).isInstanceOf(CorruptRecordException.class);
    }
  }

  @Test
  void theSchemaRejectsAQuotaOutsideItsRange() {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SqlTenantDirectory.sharing(store).upsertTenant(acme());
    }
    assertThatThrownBy(() -> sql("UPDATE tenants SET max_sessions = 0 WHERE id = 'acme'"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("CHECK");
  }

  @Test
  void aClosedStoreClosesItsDirectoryToo() {
    SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock);
    SqlTenantDirectory directory = SqlTenantDirectory.sharing(store);
    store.close();
    assertThatThrownBy(directory::tenants)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
