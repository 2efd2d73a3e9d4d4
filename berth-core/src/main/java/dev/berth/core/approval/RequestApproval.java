package dev.berth.core.approval;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Session;
import dev.berth.core.store.SessionStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

/**
 * A session's proxy asks for a decision on a held tool call. Idempotent by id and digest: the proxy
 * may send the same request again (a retry after a lost answer) and gets the stored approval; the
 * same id with other arguments is refused, since a decision is about the arguments it showed.
 *
 * <p>A session that is being suspended or deleted gets its approval cancelled at once: the cancel
 * of its pending approvals may already have run, and this call must not hold the drain either.
 */
public final class RequestApproval {

  /**
   * How long after the proxy's own deadline the approval still waits: time for the proxy's last
   * poll and its withdraw to land, so that the proxy's deadline, not the server's expiry, ends an
   * unanswered call, and no decision is recorded once neither the proxy nor the server waits.
   */
  public static final Duration GRACE = Duration.ofSeconds(5);

  /**
   * What the proxy asks about.
   *
   * @param hold how long from now the proxy holds the call (its deadline), when it says; the
   *     approval expires {@link #GRACE} after that, and never later than the server's timeout (plus
   *     the grace) allows
   */
  public record Call(
      ApprovalId id,
      String tool,
      String argumentsDigest,
      String argumentsPreview,
      Optional<String> user,
      Optional<Duration> hold) {
    public Call {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(argumentsDigest, "argumentsDigest");
      Objects.requireNonNull(argumentsPreview, "argumentsPreview");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(hold, "hold");
    }

    /** A call whose proxy holds it for the server's timeout. */
    public Call(
        ApprovalId id,
        String tool,
        String argumentsDigest,
        String argumentsPreview,
        Optional<String> user) {
      this(id, tool, argumentsDigest, argumentsPreview, user, Optional.empty());
    }
  }

  /** The stored approval, and whether this request created it. */
  public record Requested(Approval approval, boolean created) {}

  private final Approvals approvals;
  private final SessionStore sessions;
  private final ReadApprovals reads;
  private final CancelApprovals cancels;
  private final ApprovalRelay relay;
  private final InstantSource clock;
  private final Duration timeout;

  public RequestApproval(
      Approvals approvals,
      SessionStore sessions,
      ApprovalRelay relay,
      InstantSource clock,
      Duration timeout) {
    this.approvals = approvals;
    this.sessions = sessions;
    this.reads = new ReadApprovals(approvals, sessions, clock);
    this.cancels = new CancelApprovals(approvals, sessions, clock);
    this.relay = relay;
    this.clock = clock;
    this.timeout = timeout;
  }

  /**
   * @throws NotFoundException when the session does not exist (or is deleted)
   * @throws AlreadyExistsException when the id exists with another arguments digest
   */
  public Requested request(Call call) {
    Session session =
        sessions
            .get(call.id().session())
            .filter(s -> !s.deleted())
            .orElseThrow(() -> new NotFoundException("session"));
    Instant now = clock.instant();
    Approval asked =
        Approval.pending(
            call.id(),
            session.tenant(),
            call.tool(),
            call.argumentsDigest(),
            call.argumentsPreview(),
            call.user().orElse(session.tenant().value()),
            now,
            now.plus(held(call)).plus(GRACE));
    Approval stored = approvals.createIfAbsent(asked);
    if (!stored.argumentsDigest().equals(call.argumentsDigest())) {
      throw new AlreadyExistsException(
          "approval "
              + call.id()
              + " exists with arguments digest "
              + stored.argumentsDigest()
              + ", was asked again with "
              + call.argumentsDigest()
              + "; a call with other arguments needs a new request id");
    }
    boolean created = stored.equals(asked);
    // Read again after the write: a suspend or delete that recorded its intent between the first
    // read and the write found nothing to cancel, and this approval would hold its drain.
    Session current = sessions.get(session.id()).orElse(session);
    if (created && (current.deleted() || current.intent().desired() != DesiredState.RUNNING)) {
      cancels.cancelPending(session.id(), "the session is " + leaving(current));
    } else if (created) {
      relay.relay(stored);
    }
    return new Requested(reads.find(call.id()).orElse(stored), created);
  }

  /** How long the proxy holds the call: what it says, at most the server's timeout. */
  private Duration held(Call call) {
    return call.hold().filter(h -> h.compareTo(timeout) < 0 && !h.isNegative()).orElse(timeout);
  }

  private static String leaving(Session session) {
    return session.deleted() || session.intent().desired() == DesiredState.TERMINATED
        ? "being deleted"
        : "suspending";
  }
}
