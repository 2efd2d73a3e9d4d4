package dev.berth.kubernetes.store;

import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.StoreEpochs;
import dev.berth.store.CorruptRecordException;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link dev.berth.core.store.SessionStore} and {@link SessionLeases} of an installation on
 * Kubernetes: its records in ConfigMaps and its session leases in Leases, in one namespace, through
 * the API server alone (no database, so any number of control-plane replicas share it). The layout,
 * and why fenced writes hold against a takeover, are in the package documentation.
 *
 * <p>This class only delegates (through {@link RecordSessionStore}): sessions to {@link
 * SessionRecords}, operations to {@link OperationRecords}, executions to {@link ExecutionRecords},
 * the audit log to {@link AuditLog}, the leases to {@link LeaseRecords}. It does not own the
 * client: whoever built it closes it.
 *
 * <p><b>Failure modes.</b> A stored object that cannot be read raises {@link
 * CorruptRecordException} naming it; an API server that cannot be reached or refuses (other than
 * with a conflict) raises {@link KubernetesStoreException}.
 */
public final class ConfigMapSessionStore extends RecordSessionStore implements StoreEpochs {

  private final LeaseRecords leases;
  private final ConfigMapStoreEpochs epochs;

  /**
   * @param namespace where the objects live; the service account needs get, list, create and update
   *     on configmaps and leases there
   * @param installation names this installation in labels and audit object names, so that several
   *     share a namespace without seeing each other's records
   * @param clock judges lease expiry
   */
  public ConfigMapSessionStore(
      KubernetesClient client, String namespace, String installation, InstantSource clock) {
    this(assemble(client, namespace, installation, clock));
  }

  private ConfigMapSessionStore(Assembly assembly) {
    super(assembly.parts());
    this.leases = assembly.leases();
    this.epochs = assembly.epochs();
  }

  /**
   * The record parts, the leases, which raise the fences of the sessions' ConfigMaps, and the store
   * epoch their tokens start from.
   */
  private record Assembly(Parts parts, LeaseRecords leases, ConfigMapStoreEpochs epochs) {}

  private static Assembly assemble(
      KubernetesClient client, String namespace, String installation, InstantSource clock) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(clock, "clock");
    Layout layout = new Layout(installation);
    StoreJson json = new StoreJson(Layout.REPAIR);
    var configMaps = new KubeObjects<>(client, ConfigMap.class, "configmaps", namespace);
    var leaseObjects = new KubeObjects<>(client, Lease.class, "leases", namespace);
    SessionConfigMaps codec = new SessionConfigMaps(layout, json);
    ConfigMapStoreEpochs epochs = new ConfigMapStoreEpochs(configMaps, layout);
    LeaseRecords leases =
        new LeaseRecords(
            leaseObjects,
            layout,
            clock,
            (session, token) -> SessionRecords.raiseFence(configMaps, codec, session, token),
            epochs::current);
    SessionObjects objects = new SessionObjects(configMaps, codec, layout, leases);
    return new Assembly(
        new Parts(
            new SessionRecords(objects),
            new OperationRecords(objects),
            new ExecutionRecords(configMaps, layout, json),
            new AuditLog(configMaps, layout, json)),
        leases,
        epochs);
  }

  @Override
  public long current() {
    return epochs.current();
  }

  @Override
  public long advance() {
    return epochs.advance();
  }

  @Override
  public long raise(long floor) {
    return epochs.raise(floor);
  }

  @Override
  public Optional<Instant> recoverySince() {
    return epochs.recoverySince();
  }

  @Override
  public Instant beginRecovery(Instant since) {
    return epochs.beginRecovery(since);
  }

  @Override
  public void endRecovery() {
    epochs.endRecovery();
  }

  @Override
  public SessionLeases leases() {
    return leases;
  }
}
