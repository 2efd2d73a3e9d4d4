package dev.berth.client;

import dev.berth.core.session.SessionId;
import java.util.Optional;
import java.util.Set;

/**
 * A session's output stream: a reset re-reads from 0; after a drop the follow goes on while the
 * session may still get a runtime, and ends when it is a snapshot, terminated, failed or gone.
 */
final class SessionStreamTarget implements FollowTarget {

  // A session suspending still reads active: the follow waits, and ends once it is a snapshot (an
  // access may yet take the suspend back).
  private static final Set<String> NO_RUNTIME = Set.of("snapshot", "deleted", "failed");

  private final BerthClient client;
  private final SessionId id;

  SessionStreamTarget(BerthClient client, SessionId id) {
    this.client = client;
    this.id = id;
  }

  @Override
  public String describe() {
    return "session " + id;
  }

  @Override
  public String streamPath(long cursor) {
    return "/sessions/" + id + "/stream?offset=" + cursor;
  }

  @Override
  public Optional<ReadResult> reread() {
    return Optional.of(client.read(id, 0));
  }

  @Override
  public Optional<StreamEnd.Reason> over(long cursor, StringBuilder detail) {
    try {
      SessionView session = client.getSession(id);
      if (NO_RUNTIME.contains(session.state())) {
        detail.append("session ").append(id).append(" is ").append(session.lifecycle());
        return Optional.of(StreamEnd.Reason.UNAVAILABLE);
      }
      return Optional.empty();
    } catch (BerthApiException e) {
      if (e.status() == 404) {
        detail.append("session ").append(id).append(" no longer exists");
        return Optional.of(StreamEnd.Reason.UNAVAILABLE);
      }
      throw e;
    }
  }
}
