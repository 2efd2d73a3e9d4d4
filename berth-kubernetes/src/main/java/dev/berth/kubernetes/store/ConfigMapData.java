package dev.berth.kubernetes.store;

import dev.berth.store.CorruptRecordException;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/** The data of the store's ConfigMaps: a JSON record under a fixed key. */
final class ConfigMapData {

  private ConfigMapData() {}

  /** A new ConfigMap {@code name} with {@code labels} and {@code body} under {@code key}. */
  static ConfigMap single(String name, Map<String, String> labels, String key, String body) {
    ConfigMap cm = new ConfigMap();
    cm.setMetadata(Layout.metadata(name, labels));
    cm.setData(new HashMap<>(Map.of(key, body)));
    return cm;
  }

  /** The data of {@code cm}, changeable in place (an empty map it gets when it had none). */
  static Map<String, String> of(ConfigMap cm) {
    if (cm.getData() == null) {
      cm.setData(new HashMap<>());
    }
    return cm.getData();
  }

  /**
   * The record under {@code key}, which must be the one the ConfigMap is named for.
   *
   * @param nameOf the name of the ConfigMap that holds a record
   * @throws CorruptRecordException when the value is missing, unreadable or another record's
   */
  static <T extends Record> T read(
      ConfigMap cm, String key, StoreJson json, Class<T> type, Function<T, String> nameOf) {
    String name = cm.getMetadata().getName();
    String subject = type.getSimpleName() + " in ConfigMap " + name;
    T record = json.read(subject, require(cm, key), type);
    if (!name.equals(nameOf.apply(record))) {
      throw json.corrupt(subject, "it belongs in ConfigMap " + nameOf.apply(record));
    }
    return record;
  }

  /**
   * The value under {@code key}.
   *
   * @throws CorruptRecordException when there is none: the store writes it with every record
   */
  static String require(ConfigMap cm, String key) {
    String value = of(cm).get(key);
    if (value == null) {
      throw new CorruptRecordException(
          "ConfigMap " + cm.getMetadata().getName(), "it has no data key " + key, Layout.REPAIR);
    }
    return value;
  }
}
