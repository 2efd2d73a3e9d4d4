package dev.berth.kubernetes.store;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One kind of object in one namespace, with the only write the store makes: read, change, and write
 * back under the resourceVersion read ({@link #edit}). The API server answers a write under a stale
 * resourceVersion, and a create of a taken name, with 409 Conflict; {@link #edit} then reads again
 * and lets its change decide afresh, so a change never overwrites what it did not see.
 *
 * <p>Every other failure of the API server becomes a {@link KubernetesStoreException} naming the
 * object and the permissions the store needs.
 *
 * @param <T> the object kind
 */
final class KubeObjects<T extends HasMetadata> {

  /**
   * How often {@link #edit} reads again after a conflict before it gives up. Each conflict means
   * another writer's change went in, so the loop makes progress; the bound only stops a writer that
   * loses to a stream of others for ever. It is high because store-internal changes (a touch, a
   * fence raise) conflict with record writes without being a version conflict of the record.
   */
  static final int ATTEMPTS = 1000;

  private final NonNamespaceOperation<T, KubernetesResourceList<T>, Resource<T>> api;
  private final String plural;
  private final String namespace;

  KubeObjects(KubernetesClient client, Class<T> type, String plural, String namespace) {
    this.api = client.resources(type).inNamespace(namespace);
    this.plural = plural;
    this.namespace = namespace;
  }

  /**
   * What a change of {@link #edit} decided: the object to write ({@code next}, or null to write
   * nothing) and what {@link #edit} then answers.
   */
  record Edit<T, R>(@Nullable T next, R result) {
    static <T, R> Edit<T, R> keep(R result) {
      return new Edit<>(null, result);
    }

    static <T, R> Edit<T, R> write(T next, R result) {
      return new Edit<>(next, result);
    }
  }

  Optional<T> get(String name) {
    return call("read", name, () -> Optional.ofNullable(api.withName(name).get()));
  }

  /** The objects carrying every one of {@code labels}, in no particular order. */
  List<T> list(Map<String, String> labels) {
    return call(
        "list", "labelled " + labels, () -> List.copyOf(api.withLabels(labels).list().getItems()));
  }

  /** Creates {@code object}; false when its name is taken. */
  boolean create(T object) {
    return written("create", object, () -> api.resource(object).create());
  }

  /** Deletes the object {@code name}; false when there was none. */
  boolean delete(String name) {
    return call("delete", name, () -> !api.withName(name).delete().isEmpty());
  }

  /**
   * Reads the object {@code name} (empty when there is none), applies {@code change} and writes its
   * result: an update under the resourceVersion read, or a create when there was no object. On a
   * conflict it reads again and applies {@code change} to what it finds, so {@code change} must
   * decide from its argument alone (it may throw to refuse, and then nothing is written).
   */
  <R> R edit(String name, Function<Optional<T>, Edit<T, R>> change) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Optional<T> current = get(name);
      Edit<T, R> decided = change.apply(current);
      T next = decided.next();
      if (next == null) {
        return decided.result();
      }
      boolean done =
          current.isPresent()
              ? written("update", next, () -> api.resource(next).update())
              : create(next);
      if (done) {
        return decided.result();
      }
    }
    throw new KubernetesStoreException(
        plural
            + " "
            + namespace
            + "/"
            + name
            + " was changed by someone else on each of "
            + ATTEMPTS
            + " tries to write it; find what rewrites it in a loop");
  }

  /** Runs a write; false when the API server answered 409 Conflict. */
  private boolean written(String action, T object, Runnable write) {
    String name = object.getMetadata().getName();
    return call(
        action,
        name,
        () -> {
          try {
            write.run();
            return true;
          } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
              return false;
            }
            throw e;
          }
        });
  }

  private <R> R call(String action, String what, Supplier<R> request) {
    try {
      return request.get();
    } catch (KubernetesClientException e) {
      throw new KubernetesStoreException(
          "could not "
              + action
              + " "
              + plural
              + " "
              + namespace
              + "/"
              + what
              + " (HTTP "
              + e.getCode()
              + ": "
              + e.getMessage()
              + "); check that the API server is reachable and that the service account may get,"
              + " list, create, update and delete "
              + plural
              + " in namespace "
              + namespace,
          e);
    }
  }
}
