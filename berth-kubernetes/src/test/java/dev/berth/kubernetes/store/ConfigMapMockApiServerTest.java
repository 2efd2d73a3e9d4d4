package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The simulated API server the store is tested against (fabric8's mock server in CRUD mode) checks
 * resourceVersions as a real one does: the store's compare-and-swap is only tested if it does.
 */
class ConfigMapMockApiServerTest {
  private final MockApiServer server = MockApiServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private ConfigMap created() {
    return server
        .client()
        .configMaps()
        .inNamespace(MockApiServer.NAMESPACE)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .addToData("k", "1")
                .build())
        .create();
  }

  private ConfigMap update(ConfigMap read, String value) {
    return server
        .client()
        .configMaps()
        .inNamespace(MockApiServer.NAMESPACE)
        .resource(new ConfigMapBuilder(read).addToData("k", value).build())
        .update();
  }

  @Test
  void answersAnUpdateUnderAStaleResourceVersionWithConflictAndKeepsTheNewerWrite() {
    ConfigMap read = created();
    ConfigMap written = update(read, "2");
    assertThat(written.getMetadata().getResourceVersion())
        .isNotEqualTo(read.getMetadata().getResourceVersion());

    assertThatThrownBy(() -> update(read, "3"))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    assertThat(
            server
                .client()
                .configMaps()
                .inNamespace(MockApiServer.NAMESPACE)
                .withName("c")
                .get()
                .getData())
        .containsEntry("k", "2");
  }

  @Test
  void answersACreateOfATakenNameWithConflict() {
    created();
    assertThatThrownBy(this::created)
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
  }
}
