package dev.berth.core.approval;

import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One tool call of an agent session that waits, or waited, for a decision.
 *
 * @param id {@code <session>:<request id>}, made by the session's credential proxy
 * @param session the session whose agent made the call (the id's prefix)
 * @param tenant the session's tenant, whose tokens may see and decide it
 * @param tool the tool the model called, e.g. {@code WebFetch}
 * @param argumentsDigest {@code sha256:<64 hex>} of the call's complete arguments: what the
 *     decision is about, so the same id with other arguments is refused
 * @param argumentsPreview the arguments as text, at most {@link #MAX_PREVIEW_CHARS}, secrets
 *     redacted by the proxy
 * @param requester who the call acts for (the session's tenant, or the user the proxy names)
 * @param expiresAt when a pending approval stops waiting (and reads as expired)
 * @param decidedBy who ended it: a principal ({@code admin}, {@code tenant acme}), {@code gateway},
 *     {@code berth} (expired or cancelled) or {@code proxy} (withdrawn: the call stopped waiting)
 */
public record Approval(
    ApprovalId id,
    SessionId session,
    TenantId tenant,
    String tool,
    String argumentsDigest,
    String argumentsPreview,
    String requester,
    Instant createdAt,
    Instant expiresAt,
    ApprovalState state,
    Optional<String> reason,
    Optional<String> decidedBy,
    Optional<Instant> decidedAt) {

  /** The longest arguments preview kept: 4 KiB of text. */
  public static final int MAX_PREVIEW_CHARS = 4096;

  /** Who ends an approval that nobody decided: its expiry, a suspend or a delete. */
  public static final String BERTH = "berth";

  /** Who ends an approval whose call the session's proxy stopped holding (it withdrew it). */
  public static final String PROXY = "proxy";

  public Approval {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(argumentsDigest, "argumentsDigest");
    Objects.requireNonNull(argumentsPreview, "argumentsPreview");
    Objects.requireNonNull(requester, "requester");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(decidedBy, "decidedBy");
    Objects.requireNonNull(decidedAt, "decidedAt");
    if (!id.session().equals(session)) {
      throw new IllegalArgumentException("approval " + id + " is not of session " + session);
    }
    if (argumentsPreview.length() > MAX_PREVIEW_CHARS) {
      argumentsPreview = argumentsPreview.substring(0, MAX_PREVIEW_CHARS);
    }
    // PostgreSQL's text cannot hold U+0000, which a tool's arguments may: a preview is for reading.
    argumentsPreview = argumentsPreview.replace('\u0000', '\uFFFD');
  }

  /** A new pending approval. */
  public static Approval pending(
      ApprovalId id,
      TenantId tenant,
      String tool,
      String argumentsDigest,
      String argumentsPreview,
      String requester,
      Instant createdAt,
      Instant expiresAt) {
    return new Approval(
        id,
        id.session(),
        tenant,
        tool,
        argumentsDigest,
        argumentsPreview,
        requester,
        createdAt,
        expiresAt,
        ApprovalState.PENDING,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /** Whether it still waits at {@code now}: pending and not past its expiry. */
  public boolean waitsAt(Instant now) {
    return state == ApprovalState.PENDING && now.isBefore(expiresAt);
  }

  /** Whether it is pending in the store but past its expiry at {@code now}. */
  public boolean overdueAt(Instant now) {
    return state == ApprovalState.PENDING && !now.isBefore(expiresAt);
  }

  /**
   * This approval ended by {@code event} (through the one transition table).
   *
   * @throws dev.berth.core.error.IllegalTransitionException when it is no longer pending
   */
  public Approval ended(ApprovalState.Event event, Optional<String> why, String by, Instant at) {
    ApprovalState next = ApprovalState.TABLE.next("approval " + id, state, event);
    return new Approval(
        id,
        session,
        tenant,
        tool,
        argumentsDigest,
        argumentsPreview,
        requester,
        createdAt,
        expiresAt,
        next,
        why,
        Optional.of(by),
        Optional.of(at));
  }
}
