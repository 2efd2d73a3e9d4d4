package dev.berth.kubernetes.store;

import dev.berth.core.error.StaleFenceException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Session;
import dev.berth.core.store.FencingToken;
import dev.berth.store.CorruptRecordException;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a session's ConfigMap holds and how it is read and changed in place: the session's JSON
 * under data key {@value #SESSION_KEY}, each of its operations under {@code operation.<id>}, the
 * fence annotation ({@link Layout#FENCE}), and labels copied out of the records for selection
 * (tenant, phase, deleted, whether an operation is unfinished). The records' own {@code version}s
 * live in their JSON; the ConfigMap's resourceVersion only serialises the writes.
 */
final class SessionConfigMaps {

  static final String KIND = "session";
  static final String SESSION_KEY = "session";
  private static final String OPERATION_PREFIX = "operation.";
  static final Comparator<Operation> OLDEST_FIRST =
      Comparator.comparing(Operation::createdAt).thenComparing(o -> o.id().value());

  private final Layout layout;
  private final StoreJson json;

  SessionConfigMaps(Layout layout, StoreJson json) {
    this.layout = layout;
    this.json = json;
  }

  Layout layout() {
    return layout;
  }

  /** A new ConfigMap holding {@code s} (already at its stored version) and no operations. */
  ConfigMap newConfigMap(Session s) {
    ConfigMap cm = new ConfigMap();
    cm.setMetadata(Layout.metadata(Layout.session(s.id()), layout.selector(KIND, s.id())));
    putSession(cm, s);
    putUnfinishedLabel(cm);
    return cm;
  }

  Session session(ConfigMap cm) {
    return ConfigMapData.read(cm, SESSION_KEY, json, Session.class, s -> Layout.session(s.id()));
  }

  void putSession(ConfigMap cm, Session s) {
    ConfigMapData.of(cm).put(SESSION_KEY, json.write(s));
    Map<String, String> labels = labels(cm);
    labels.put(Layout.TENANT, s.tenant().value());
    labels.put(Layout.PHASE, s.phase().name());
    labels.put(Layout.DELETED, Boolean.toString(s.deleted()));
  }

  /** The operations of the session, oldest first. */
  List<Operation> operations(ConfigMap cm) {
    List<Operation> ops = new ArrayList<>();
    ConfigMapData.of(cm)
        .forEach(
            (key, body) -> {
              if (key.startsWith(OPERATION_PREFIX)) {
                ops.add(readOperation(cm, key, body));
              }
            });
    ops.sort(OLDEST_FIRST);
    return ops;
  }

  Optional<Operation> operation(ConfigMap cm, OperationId id) {
    String key = OPERATION_PREFIX + id.value();
    return Optional.ofNullable(ConfigMapData.of(cm).get(key))
        .map(body -> readOperation(cm, key, body));
  }

  void putOperation(ConfigMap cm, Operation op) {
    ConfigMapData.of(cm).put(OPERATION_PREFIX + op.id().value(), json.write(op));
    putUnfinishedLabel(cm);
  }

  /**
   * Accepts a write fenced with {@code offered} and records it in the ConfigMap's fence, or rejects
   * it. It must be the lease's highest token ({@code issued}, read before this ConfigMap), and no
   * write or takeover may have raised the ConfigMap's fence above it since: that second check is
   * the one that holds against a takeover between reading the lease and writing (see package-info).
   *
   * @throws StaleFenceException when {@code offered} is not the current token
   */
  void acceptFence(ConfigMap cm, String subject, FencingToken offered, long issued) {
    long fence = fence(cm);
    if (offered.value() != issued || fence > offered.value()) {
      throw new StaleFenceException(subject, offered.value(), Math.max(issued, fence));
    }
    setFence(cm, offered.value());
  }

  /** Whether raising the fence to {@code token} changes {@code cm} (it never lowers it). */
  boolean raiseFence(ConfigMap cm, long token) {
    if (fence(cm) >= token) {
      return false;
    }
    setFence(cm, token);
    return true;
  }

  private long fence(ConfigMap cm) {
    String value = Layout.annotations(cm).get(Layout.FENCE);
    if (value == null) {
      return 0;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new CorruptRecordException(
          "ConfigMap " + cm.getMetadata().getName(),
          "annotation " + Layout.FENCE + " must be a number, was \"" + value + "\"",
          Layout.REPAIR,
          e);
    }
  }

  private static void setFence(ConfigMap cm, long token) {
    Layout.annotations(cm).put(Layout.FENCE, Long.toString(token));
  }

  private void putUnfinishedLabel(ConfigMap cm) {
    boolean unfinished = operations(cm).stream().anyMatch(o -> !o.state().isFinished());
    labels(cm).put(Layout.UNFINISHED_OPERATIONS, Boolean.toString(unfinished));
  }

  private Operation readOperation(ConfigMap cm, String key, String body) {
    String subject = "operation " + key + " in ConfigMap " + cm.getMetadata().getName();
    Operation op = json.read(subject, body, Operation.class);
    if (!key.equals(OPERATION_PREFIX + op.id().value())
        || !cm.getMetadata().getName().equals(Layout.session(op.sessionId()))) {
      throw json.corrupt(subject, "it holds operation " + op.id());
    }
    return op;
  }

  private static Map<String, String> labels(ConfigMap cm) {
    if (cm.getMetadata().getLabels() == null) {
      cm.getMetadata().setLabels(new HashMap<>());
    }
    return cm.getMetadata().getLabels();
  }
}
