package dev.berth.kubernetes.store;

import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.Session;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.StoreEpochs;
import dev.berth.store.ControlPlaneStore;
import dev.berth.store.CorruptRecordException;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

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
public final class ConfigMapSessionStore extends RecordSessionStore
    implements ControlPlaneStore, StoreEpochs {

  private final LeaseRecords leases;
  private final ConfigMapStoreEpochs epochs;
  private final AuditLog audit;
  private final KubeObjects<ConfigMap> configMaps;
  private final SessionConfigMaps codec;
  private final Layout layout;
  private final String namespace;

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
    this.audit = assembly.audit();
    this.configMaps = assembly.configMaps();
    this.codec = assembly.codec();
    this.layout = assembly.codec().layout();
    this.namespace = assembly.namespace();
  }

  /**
   * The record parts and the leases, which raise the fences of the sessions' ConfigMaps; the store
   * epoch their tokens start from; the rest for the installation-wide reads.
   */
  private record Assembly(
      Parts parts,
      LeaseRecords leases,
      ConfigMapStoreEpochs epochs,
      AuditLog audit,
      KubeObjects<ConfigMap> configMaps,
      SessionConfigMaps codec,
      String namespace) {}

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
    AuditLog audit = new AuditLog(configMaps, layout, json);
    return new Assembly(
        new Parts(
            new SessionRecords(objects),
            new OperationRecords(objects),
            new ExecutionRecords(configMaps, layout, json),
            audit),
        leases,
        epochs,
        audit,
        configMaps,
        codec,
        namespace);
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

  @Override
  public List<AuditEvent> allEvents(long after, int limit) {
    return audit.allEvents(after, limit);
  }

  /** Counted from every session not deleted, read in full: its cost grows with the sessions. */
  @Override
  public Map<Phase, Long> countByPhase() {
    return count(Session::phase, Phase.class);
  }

  @Override
  public Map<Reservation, Long> countByReservation() {
    return count(Session::reservation, Reservation.class);
  }

  private <K extends Enum<K>> Map<K, Long> count(Function<Session, K> key, Class<K> type) {
    Map<String, String> labels = layout.selector(SessionConfigMaps.KIND);
    labels.put(Layout.DELETED, "false");
    Map<K, Long> counts = new EnumMap<>(type);
    for (ConfigMap cm : configMaps.list(labels)) {
      counts.merge(key.apply(codec.session(cm)), 1L, Long::sum);
    }
    return counts;
  }

  /**
   * Reads the installation record: any answer of the API server, even "none", proves it answers.
   */
  @Override
  public void checkReachable() {
    var unused = configMaps.get(Layout.INSTALLATION_RECORD);
  }

  /**
   * The namespace must still name this installation: a namespace emptied or restored from another
   * installation's backup would otherwise be served as if it were this one's.
   */
  @Override
  public void checkMigrated() {
    String recorded = ConfigMapInstallation.recorded(configMaps).orElse("none");
    if (!recorded.equals(layout.installation())) {
      throw new IllegalStateException(
          "ConfigMap "
              + namespace
              + "/"
              + Layout.INSTALLATION_RECORD
              + " names installation "
              + recorded
              + ", but this server opened the store as installation "
              + layout.installation()
              + "; restore that ConfigMap, or restart the server to open the store as it is now");
    }
  }

  @Override
  public String describe() {
    return "kubernetes://" + namespace;
  }

  /** Nothing to free: the client is its builder's to close. */
  @Override
  public void close() {}
}
