package dev.berth.kubernetes.store;

import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.FencingToken;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.store.RecordSessionStore;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operations, kept inside their session's ConfigMap (one data key each) so that a fenced update
 * checks the same object's fence it writes: see package-info for why they are not ConfigMaps of
 * their own. An operation id names its session ({@code op-<session id>-<type>-<n>}), so reading one
 * by id reads one ConfigMap.
 */
final class OperationRecords implements RecordSessionStore.Operations {

  private static final int SESSION_ID_START = "op-".length();
  private static final int SESSION_ID_END = SESSION_ID_START + 32;

  private final SessionObjects objects;

  OperationRecords(SessionObjects objects) {
    this.objects = objects;
  }

  /**
   * Adds {@code operation} at version 1, or answers the one stored under its id.
   *
   * @throws NotFoundException when its session does not exist
   */
  @Override
  public Operation create(Operation operation) {
    return objects
        .configMaps()
        .edit(
            Layout.session(operation.sessionId()),
            current -> {
              ConfigMap cm =
                  current.orElseThrow(
                      () ->
                          new NotFoundException(
                              "session " + operation.sessionId() + " of operation"));
              Optional<Operation> existing = objects.codec().operation(cm, operation.id());
              if (existing.isPresent()) {
                return Edit.keep(existing.get());
              }
              Operation stored = operation.withVersion(1);
              objects.codec().putOperation(cm, stored);
              return Edit.write(cm, stored);
            });
  }

  @Override
  public Optional<Operation> get(OperationId id) {
    return objects
        .configMaps()
        .get(Layout.session(sessionOf(id)))
        .flatMap(cm -> objects.codec().operation(cm, id));
  }

  @Override
  public List<Operation> ofSession(SessionId session) {
    return objects
        .configMaps()
        .get(Layout.session(session))
        .map(objects.codec()::operations)
        .orElse(List.of());
  }

  /** Every unfinished operation, oldest first, from the sessions labelled as having one. */
  @Override
  public List<Operation> unfinished() {
    Map<String, String> labels = objects.layout().selector(SessionConfigMaps.KIND);
    labels.put(Layout.UNFINISHED_OPERATIONS, "true");
    return objects.configMaps().list(labels).stream()
        .flatMap(cm -> objects.codec().operations(cm).stream())
        .filter(o -> !o.state().isFinished())
        .sorted(SessionConfigMaps.OLDEST_FIRST)
        .toList();
  }

  @Override
  public Operation update(Operation next, long expectedVersion, FencingToken fence) {
    String subject = "operation " + next.id();
    return objects
        .configMaps()
        .edit(
            Layout.session(next.sessionId()),
            current -> {
              ConfigMap cm = current.orElseThrow(() -> new NotFoundException(subject));
              Operation stored =
                  objects
                      .codec()
                      .operation(cm, next.id())
                      .orElseThrow(() -> new NotFoundException(subject));
              objects
                  .codec()
                  .acceptFence(cm, subject, fence, objects.tokens().highest(next.sessionId()));
              if (stored.version() != expectedVersion) {
                throw new VersionConflictException(subject, expectedVersion, stored.version());
              }
              Operation written = next.withVersion(expectedVersion + 1);
              objects.codec().putOperation(cm, written);
              return Edit.write(cm, written);
            });
  }

  private static SessionId sessionOf(OperationId id) {
    return new SessionId(id.value().substring(SESSION_ID_START, SESSION_ID_END));
  }
}
