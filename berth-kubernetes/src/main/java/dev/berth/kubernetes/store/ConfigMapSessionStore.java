package dev.berth.kubernetes.store;

import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link SessionStore} and {@link SessionLeases} of an installation on Kubernetes: its records
 * in ConfigMaps and its session leases in Leases, in one namespace, through the API server alone
 * (no database, so any number of control-plane replicas share it). The layout, and why fenced
 * writes hold against a takeover, are in the package documentation.
 *
 * <p>This class only delegates: sessions to {@link SessionRecords}, operations to {@link
 * OperationRecords}, executions to {@link ExecutionRecords}, the audit log to {@link AuditLog}, the
 * leases to {@link LeaseRecords}. It does not own the client: whoever built it closes it.
 *
 * <p><b>Failure modes.</b> A stored object that cannot be read raises {@link
 * CorruptRecordException} naming it; an API server that cannot be reached or refuses (other than
 * with a conflict) raises {@link KubernetesStoreException}.
 */
public final class ConfigMapSessionStore implements SessionStore {

  private final SessionRecords sessions;
  private final OperationRecords operations;
  private final ExecutionRecords executions;
  private final AuditLog audit;
  private final LeaseRecords leases;

  /**
   * @param namespace where the objects live; the service account needs get, list, create and update
   *     on configmaps and leases there
   * @param installation names this installation in labels and audit object names, so that several
   *     share a namespace without seeing each other's records
   * @param clock judges lease expiry
   */
  public ConfigMapSessionStore(
      KubernetesClient client, String namespace, String installation, InstantSource clock) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(clock, "clock");
    Layout layout = new Layout(installation);
    RecordJson json = new RecordJson();
    var configMaps = new KubeObjects<>(client, ConfigMap.class, "configmaps", namespace);
    var leaseObjects = new KubeObjects<>(client, Lease.class, "leases", namespace);
    SessionConfigMaps codec = new SessionConfigMaps(layout, json);
    this.leases = new LeaseRecords(leaseObjects, layout, clock, this::raiseFence);
    SessionObjects objects = new SessionObjects(configMaps, codec, layout, leases);
    this.sessions = new SessionRecords(objects);
    this.operations = new OperationRecords(objects);
    this.executions = new ExecutionRecords(configMaps, layout, json);
    this.audit = new AuditLog(configMaps, layout, json);
  }

  private void raiseFence(SessionId session, long token) {
    sessions.raiseFence(session, token);
  }

  // ---- sessions -------------------------------------------------------------------------------

  @Override
  public Session create(Session session) {
    return sessions.create(session);
  }

  @Override
  public Optional<Session> get(SessionId id) {
    return sessions.get(id);
  }

  @Override
  public Page<Session> list(SessionQuery query) {
    return sessions.list(query);
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion) {
    return sessions.compareAndSet(next, expectedVersion, Optional.empty());
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion, FencingToken fence) {
    return sessions.compareAndSet(next, expectedVersion, Optional.of(fence));
  }

  @Override
  public boolean touch(SessionId id, Instant at) {
    return sessions.touch(id, at);
  }

  @Override
  public SessionLeases leases() {
    return leases;
  }

  // ---- operations -----------------------------------------------------------------------------

  @Override
  public Operation createOperation(Operation operation) {
    return operations.create(operation);
  }

  @Override
  public Optional<Operation> getOperation(OperationId id) {
    return operations.get(id);
  }

  @Override
  public List<Operation> listOperations(SessionId session) {
    return operations.ofSession(session);
  }

  @Override
  public List<Operation> unfinishedOperations() {
    return operations.unfinished();
  }

  @Override
  public Operation updateOperation(Operation next, long expectedVersion, FencingToken fence) {
    return operations.update(next, expectedVersion, fence);
  }

  // ---- executions -----------------------------------------------------------------------------

  @Override
  public Execution createExecution(Execution execution) {
    return executions.create(execution);
  }

  @Override
  public Optional<Execution> getExecution(ExecutionId id) {
    return executions.get(id);
  }

  @Override
  public List<Execution> listExecutions(SessionId session) {
    return executions.ofSession(session);
  }

  @Override
  public Execution updateExecution(Execution next, long expectedVersion) {
    return executions.update(next, expectedVersion);
  }

  // ---- audit log ------------------------------------------------------------------------------

  @Override
  public AuditEvent append(AuditEvent event) {
    return audit.append(event);
  }

  @Override
  public List<AuditEvent> events(SessionId session, long after, int limit) {
    return audit.events(session, after, limit);
  }
}
