package dev.berth.kubernetes.store;

import dev.berth.core.store.StoreEpochs;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import io.fabric8.kubernetes.api.model.ConfigMap;

/**
 * The store epoch of an installation in one ConfigMap, {@code berth-epoch-<installation>}: raised
 * by {@link KubeObjects#edit} under the resourceVersion read, so two replicas advancing at once get
 * two epochs (the second's write conflicts, and it reads again).
 */
final class ConfigMapStoreEpochs implements StoreEpochs {

  static final String KIND = "store-epoch";
  static final String KEY = "epoch";

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

  private ConfigMap written(java.util.Optional<ConfigMap> current, long epoch) {
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
