package dev.berth.kubernetes.store;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.Approvals;
import dev.berth.core.session.SessionId;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link Approvals} on Kubernetes: one ConfigMap per approval ({@code approval-<session>-<id>},
 * the JSON under data key {@value #KEY}), labelled with its session and its state so that a
 * session's approvals, and the pending ones, are selected by label. Creating it is the create of
 * the ConfigMap (a taken name answers the stored one); ending it is a compare-and-swap that writes
 * only over a pending approval, so of deciders racing exactly one ends it.
 */
public final class ConfigMapApprovals implements Approvals {

  static final String KIND = "approval";
  private static final String KEY = "approval";
  private static final String STATE = "berth.dev/approval-state";
  private static final Comparator<Approval> NEWEST_FIRST =
      Comparator.comparing(Approval::createdAt).reversed().thenComparing(Approval::id);
  private static final Comparator<Approval> EXPIRING_FIRST =
      Comparator.comparing(Approval::expiresAt).thenComparing(Approval::id);

  private final KubeObjects<ConfigMap> configMaps;
  private final Layout layout;
  private final StoreJson json;

  /**
   * @param namespace where the store's objects live; the service account needs get, list, create
   *     and update on configmaps there
   * @param installation as the {@link ConfigMapSessionStore} of the namespace is opened with
   */
  public ConfigMapApprovals(KubernetesClient client, String namespace, String installation) {
    this.configMaps = new KubeObjects<>(client, ConfigMap.class, "configmaps", namespace);
    this.layout = new Layout(installation);
    this.json = new StoreJson(Layout.REPAIR);
  }

  @Override
  public Approval createIfAbsent(Approval approval) {
    if (configMaps.create(configMap(approval))) {
      return approval;
    }
    return find(approval.id())
        .orElseThrow(
            () ->
                new KubernetesStoreException(
                    "ConfigMap "
                        + Layout.approval(approval.id().value())
                        + " was there when approval "
                        + approval.id()
                        + " was created and gone when read; find what deletes approvals"));
  }

  @Override
  public Optional<Approval> find(ApprovalId id) {
    return configMaps.get(Layout.approval(id.value())).map(this::read);
  }

  @Override
  public List<Approval> list(SessionId session, Optional<ApprovalState> state) {
    Map<String, String> labels = layout.selector(KIND, session);
    state.ifPresent(s -> labels.put(STATE, s.name()));
    return configMaps.list(labels).stream()
        .map(this::read)
        .filter(a -> state.map(s -> s == a.state()).orElse(true))
        .sorted(NEWEST_FIRST)
        .toList();
  }

  @Override
  public boolean end(Approval ended) {
    return configMaps.edit(
        Layout.approval(ended.id().value()),
        current -> {
          if (current.isEmpty() || read(current.get()).state() != ApprovalState.PENDING) {
            return Edit.keep(false);
          }
          ConfigMap cm = current.get();
          ConfigMapData.of(cm).put(KEY, json.write(ended));
          cm.getMetadata().getLabels().put(STATE, ended.state().name());
          return Edit.write(cm, true);
        });
  }

  @Override
  public int countPending(SessionId session) {
    return list(session, Optional.of(ApprovalState.PENDING)).size();
  }

  @Override
  public List<Approval> pendingExpiredBy(Instant now) {
    return pending().stream()
        .filter(a -> !a.expiresAt().isAfter(now))
        .sorted(EXPIRING_FIRST)
        .toList();
  }

  /** How many approvals of the installation are pending (expired or not), for the gauge. */
  public int countAllPending() {
    return pending().size();
  }

  private List<Approval> pending() {
    Map<String, String> labels = layout.selector(KIND);
    labels.put(STATE, ApprovalState.PENDING.name());
    return configMaps.list(labels).stream()
        .map(this::read)
        .filter(a -> a.state() == ApprovalState.PENDING)
        .toList();
  }

  private ConfigMap configMap(Approval approval) {
    Map<String, String> labels = layout.selector(KIND, approval.session());
    labels.put(STATE, approval.state().name());
    return ConfigMapData.single(
        Layout.approval(approval.id().value()), labels, KEY, json.write(approval));
  }

  private Approval read(ConfigMap cm) {
    return ConfigMapData.read(cm, KEY, json, Approval.class, a -> Layout.approval(a.id().value()));
  }
}
