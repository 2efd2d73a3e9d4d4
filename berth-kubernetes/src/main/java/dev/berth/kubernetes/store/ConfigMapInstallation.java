package dev.berth.kubernetes.store;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The installation record of a namespace's store: ConfigMap {@value Layout#INSTALLATION_RECORD}
 * holding the installation's id under data key {@value #KEY}. The first server to open the store
 * records the id it minted (a create, so of servers starting at once exactly one wins) and every
 * later one reads it, so all replicas label their runtimes and records as one installation.
 */
public final class ConfigMapInstallation {

  static final String KEY = "id";

  private ConfigMapInstallation() {}

  /**
   * The installation id recorded in {@code namespace}, or {@code minted} recorded there when none
   * was.
   *
   * @throws KubernetesStoreException when the API server cannot be asked or refuses
   * @throws dev.berth.store.CorruptRecordException when the record holds no id
   */
  public static String readOrRecord(
      KubernetesClient client, String namespace, Supplier<String> minted) {
    KubeObjects<ConfigMap> configMaps =
        new KubeObjects<>(client, ConfigMap.class, "configmaps", namespace);
    Optional<String> recorded = recorded(configMaps);
    if (recorded.isPresent()) {
      return recorded.get();
    }
    String candidate = Objects.requireNonNull(minted.get(), "minted");
    ConfigMap record =
        ConfigMapData.single(
            Layout.INSTALLATION_RECORD,
            Map.of(Layout.MANAGED_BY, "berth", Layout.KIND, "installation"),
            KEY,
            candidate);
    if (configMaps.create(record)) {
      return candidate;
    }
    // Another server recorded its id first: that one is the installation's.
    return recorded(configMaps).orElseThrow(() -> vanished(namespace));
  }

  /** The id the namespace's installation record holds, or empty when there is none. */
  static Optional<String> recorded(KubeObjects<ConfigMap> configMaps) {
    return configMaps
        .get(Layout.INSTALLATION_RECORD)
        .map(cm -> ConfigMapData.require(cm, KEY).strip());
  }

  private static KubernetesStoreException vanished(String namespace) {
    return new KubernetesStoreException(
        "ConfigMap "
            + namespace
            + "/"
            + Layout.INSTALLATION_RECORD
            + " existed when this server tried to record the installation and is gone now; find"
            + " what deletes it (it must stay for the store's whole life) and start again");
  }
}
