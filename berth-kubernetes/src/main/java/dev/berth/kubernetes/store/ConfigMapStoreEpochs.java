package dev.berth.kubernetes.store;

import dev.berth.core.store.StoreEpochs;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.time.Instant;
import java.util.Optional;

/**
 * The store epoch of an installation in one ConfigMap, {@code berth-epoch-<installation>}: raised
 * by {@link KubeObjects#edit} under the resourceVersion read, so two replicas advancing at once get
 * two epochs (the second's write conflicts, and it reads again).
 */
final class ConfigMapStoreEpochs implements StoreEpochs {

  static final String KIND = "store-epoch";
  static final String KEY = "epoch";
  static final String RECOVERY_SINCE = "recoverySince";

  private final KubeObjects<ConfigMap> configMaps;
  private final Layout layout;

  ConfigMapStoreEpochs(KubeObjects<ConfigMap> configMaps, Layout layout) {
    this.configMaps = configMaps;
    this.layout = layout;
  }

  private String name() {
    return "berth-epoch-" + layout.installation();
  }

  @Override
  public long current() {
    return configMaps.get(name()).map(this::read).orElse(0L);
  }

  @Override
  public long advance() {
    return configMaps.edit(
        name(),
        current -> {
          long next = current.map(this::read).orElse(0L) + 1;
          return Edit.write(written(current, next), next);
        });
  }

  @Override
  public long raise(long floor) {
    return configMaps.edit(
        name(),
        current -> {
          long now = current.map(this::read).orElse(0L);
          return now >= floor ? Edit.keep(now) : Edit.write(written(current, floor), floor);
        });
  }

  @Override
  public Optional<Instant> recoverySince() {
    return configMaps
        .get(name())
        .flatMap(cm -> Optional.ofNullable(ConfigMapData.of(cm).get(RECOVERY_SINCE)))
        .map(Instant::parse);
  }

  @Override
  public Instant beginRecovery(Instant since) {
    return configMaps.edit(
        name(),
        current -> {
          Optional<String> began =
              current.flatMap(cm -> Optional.ofNullable(ConfigMapData.of(cm).get(RECOVERY_SINCE)));
          if (began.isPresent()) {
            return Edit.keep(Instant.parse(began.get()));
          }
          ConfigMap cm = written(current, current.map(this::read).orElse(0L));
          ConfigMapData.of(cm).put(RECOVERY_SINCE, since.toString());
          return Edit.write(cm, since);
        });
  }

  @Override
  public void endRecovery() {
    configMaps.edit(
        name(),
        current -> {
          if (current.isEmpty() || !ConfigMapData.of(current.get()).containsKey(RECOVERY_SINCE)) {
            return Edit.keep(false);
          }
          ConfigMapData.of(current.get()).remove(RECOVERY_SINCE);
          return Edit.write(current.get(), true);
        });
  }

  private ConfigMap written(Optional<ConfigMap> current, long epoch) {
    ConfigMap cm =
        current.orElseGet(
            () -> ConfigMapData.single(name(), layout.selector(KIND), KEY, Long.toString(epoch)));
    ConfigMapData.of(cm).put(KEY, Long.toString(epoch));
    return cm;
  }

  private long read(ConfigMap cm) {
    String value = ConfigMapData.require(cm, KEY);
    try {
      long epoch = Long.parseLong(value.strip());
      if (epoch >= 0) {
        return epoch;
      }
    } catch (NumberFormatException e) {
      // the one error below names the object, the value and the repair
    }
    throw new dev.berth.store.CorruptRecordException(
        "ConfigMap " + cm.getMetadata().getName(),
        "its " + KEY + " must be a decimal number >= 0, was \"" + value + "\"",
        Layout.REPAIR);
  }
}
