package dev.berth.store;

import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.store.InstallationAudit;
import dev.berth.core.store.SessionStore;
import java.util.Map;

/**
 * What a control plane asks of the store it runs on beyond the record ports: the gauges' counts and
 * the readiness checks. The SQL store and the ConfigMap store both implement it, so the server
 * wires either the same way; the ports that live beside the sessions (tenants, duties, approvals,
 * the admission lock) are the adapters' own classes, opened on the same store.
 */
public interface ControlPlaneStore extends SessionStore, InstallationAudit, AutoCloseable {

  /** How many sessions (not deleted) are in each phase; phases with none may be missing. */
  Map<Phase, Long> countByPhase();

  /**
   * How many sessions (not deleted) hold each kind of reservation; kinds with none may be missing.
   */
  Map<Reservation, Long> countByReservation();

  /**
   * Proves the store answers now; for readiness.
   *
   * @throws RuntimeException naming the store when it does not
   */
  void checkReachable();

  /**
   * Checks that the store still holds what this server opened: the schema it migrated to, or the
   * installation record it read.
   *
   * @throws IllegalStateException naming what changed and what to do
   */
  void checkMigrated();

  /** Names the store in messages, without credentials. */
  String describe();

  /** Frees what the store holds (a connection pool); idempotent. */
  @Override
  void close();
}
