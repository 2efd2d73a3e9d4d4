package dev.berth.kubernetes.store;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The executions, one ConfigMap each ({@code execution-<id>}, the JSON under data key {@value
 * #KEY}, labelled with their session): a session runs many, so they stay out of its ConfigMap, and
 * their writes are not fenced, so nothing needs them there.
 */
final class ExecutionRecords implements RecordSessionStore.Executions {

  static final String KIND = "execution";
  private static final String KEY = "execution";
  private static final Comparator<Execution> OLDEST_FIRST =
      Comparator.comparing(Execution::submittedAt).thenComparing(e -> e.id().value());

  private final KubeObjects<ConfigMap> configMaps;
  private final Layout layout;
  private final StoreJson json;

  ExecutionRecords(KubeObjects<ConfigMap> configMaps, Layout layout, StoreJson json) {
    this.configMaps = configMaps;
    this.layout = layout;
    this.json = json;
  }

  @Override
  public Execution create(Execution execution) {
    Execution stored = execution.withVersion(1);
    ConfigMap cm =
        ConfigMapData.single(
            Layout.execution(execution.id()),
            layout.selector(KIND, execution.sessionId()),
            KEY,
            json.write(stored));
    if (!configMaps.create(cm)) {
      throw new AlreadyExistsException("execution " + execution.id());
    }
    return stored;
  }

  @Override
  public Optional<Execution> get(ExecutionId id) {
    return configMaps.get(Layout.execution(id)).map(this::read);
  }

  @Override
  public List<Execution> ofSession(SessionId session) {
    return configMaps.list(layout.selector(KIND, session)).stream()
        .map(this::read)
        .sorted(OLDEST_FIRST)
        .toList();
  }

  @Override
  public Execution update(Execution next, long expectedVersion) {
    String subject = "execution " + next.id();
    return configMaps.edit(
        Layout.execution(next.id()),
        current -> {
          ConfigMap cm = current.orElseThrow(() -> new NotFoundException(subject));
          Execution stored = read(cm);
          if (stored.version() != expectedVersion) {
            throw new VersionConflictException(subject, expectedVersion, stored.version());
          }
          Execution written = next.withVersion(expectedVersion + 1);
          ConfigMapData.of(cm).put(KEY, json.write(written));
          return Edit.write(cm, written);
        });
  }

  private Execution read(ConfigMap cm) {
    return ConfigMapData.read(cm, KEY, json, Execution.class, e -> Layout.execution(e.id()));
  }
}
