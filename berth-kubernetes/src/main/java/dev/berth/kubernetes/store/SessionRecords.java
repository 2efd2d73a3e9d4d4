package dev.berth.kubernetes.store;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionQuery;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.store.PageCursor;
import dev.berth.store.PageCursor.Keyed;
import dev.berth.store.RecordSessionStore;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The sessions, one ConfigMap each ({@link SessionConfigMaps}). A compare-and-swap reads the
 * ConfigMap, checks the session's own version (and fence), and writes under the resourceVersion
 * read; a 409 means someone changed the ConfigMap in between, which may have been a touch, an
 * operation or a fence raise rather than a session write, so it reads again and checks the version
 * afresh: only a changed session version is a {@link VersionConflictException}.
 *
 * <p><b>Last access.</b> A touch rewrites the session with lastAccess moved forwards and its
 * version unchanged; a compare-and-swap keeps the newer of the written and the stored lastAccess.
 * Both are read-modify-writes of one object, so neither loses the other's lastAccess.
 *
 * <p><b>Listing.</b> The API server can select by label but not order or page by creation time, so
 * a listing reads every session the labels select (tenant, deleted, and the phase when there is
 * one), filters again in full, sorts by {@code (createdAt, id)} and cuts the page after the token's
 * place ({@link PageCursor}). Its cost grows with the installation's sessions, not the page.
 */
final class SessionRecords implements RecordSessionStore.Sessions {

  private final SessionObjects objects;

  SessionRecords(SessionObjects objects) {
    this.objects = objects;
  }

  @Override
  public Session create(Session session) {
    Session stored = session.withVersion(1);
    if (!objects.configMaps().create(objects.codec().newConfigMap(stored))) {
      throw new AlreadyExistsException("session " + session.id());
    }
    return stored;
  }

  @Override
  public Optional<Session> get(SessionId id) {
    return objects.configMaps().get(Layout.session(id)).map(objects.codec()::session);
  }

  @Override
  public Page<Session> list(SessionQuery query) {
    Optional<PageCursor> after = query.pageToken().map(PageCursor::parse);
    List<Keyed<Session>> selected =
        objects.configMaps().list(selector(query)).stream()
            .map(objects.codec()::session)
            .filter(s -> admits(query, s))
            .map(s -> new Keyed<>(s, PageCursor.of(s)))
            .filter(k -> after.map(a -> a.compareTo(k.cursor()) < 0).orElse(true))
            .sorted((a, b) -> a.cursor().compareTo(b.cursor()))
            .limit(query.limit() + 1L)
            .toList();
    return PageCursor.page(selected, query.limit());
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion, Optional<FencingToken> fence) {
    String subject = "session " + next.id();
    return objects
        .configMaps()
        .edit(
            Layout.session(next.id()),
            current -> {
              ConfigMap cm = current.orElseThrow(() -> new NotFoundException(subject));
              Session stored = objects.codec().session(cm);
              fence.ifPresent(
                  f ->
                      objects
                          .codec()
                          .acceptFence(cm, subject, f, objects.tokens().highest(next.id())));
              if (stored.version() != expectedVersion) {
                throw new VersionConflictException(subject, expectedVersion, stored.version());
              }
              Session written =
                  next.withActivity(next.activity().touchedAt(stored.activity().lastAccess()))
                      .withVersion(expectedVersion + 1);
              objects.codec().putSession(cm, written);
              return Edit.write(cm, written);
            });
  }

  @Override
  public boolean touch(SessionId id, Instant at) {
    return objects
        .configMaps()
        .edit(
            Layout.session(id),
            current -> {
              if (current.isEmpty()) {
                return Edit.keep(false);
              }
              ConfigMap cm = current.get();
              Session stored = objects.codec().session(cm);
              if (!at.isAfter(stored.activity().lastAccess())) {
                return Edit.keep(true);
              }
              objects.codec().putSession(cm, stored.withActivity(stored.activity().touchedAt(at)));
              return Edit.write(cm, true);
            });
  }

  /**
   * Raises the fence of {@code id}'s ConfigMap to {@code token}, so that writes fenced with an
   * older token fail from now on; nothing when there is no such session.
   *
   * @return whether the fence moved
   */
  static boolean raiseFence(
      KubeObjects<ConfigMap> configMaps, SessionConfigMaps codec, SessionId id, long token) {
    return configMaps.edit(
        Layout.session(id),
        current -> {
          if (current.isEmpty() || !codec.raiseFence(current.get(), token)) {
            return Edit.keep(false);
          }
          return Edit.write(current.get(), true);
        });
  }

  private Map<String, String> selector(SessionQuery query) {
    Map<String, String> labels = objects.layout().selector(SessionConfigMaps.KIND);
    query.tenant().ifPresent(t -> labels.put(Layout.TENANT, t.value()));
    if (query.phases().size() == 1) {
      labels.put(Layout.PHASE, query.phases().iterator().next().name());
    }
    switch (query.deleted()) {
      case INCLUDED -> {}
      case EXCLUDED -> labels.put(Layout.DELETED, "false");
      case ONLY -> labels.put(Layout.DELETED, "true");
    }
    return labels;
  }

  /** The query's filter in full: the labels are a copy of the record and only narrow the read. */
  private static boolean admits(SessionQuery query, Session s) {
    return query.tenant().map(t -> t.equals(s.tenant())).orElse(true)
        && (query.phases().isEmpty() || query.phases().contains(s.phase()))
        && query.deleted().admits(s);
  }
}
