package dev.berth.client;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.OptBoolean;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A tool call an agent session's credential proxy holds until someone decides on it ({@code GET
 * /sessions/{id}/approvals}, {@code docs/api.md}).
 *
 * @param id {@code <sessionId>:<requestId>}, the id the proxy asked the gateway with
 * @param tool the tool's name as the model called it ({@code Bash}, {@code WebFetch}, {@code
 *     mcp__…})
 * @param argumentsDigest {@code sha256:<64 hex>} of the call's complete arguments: what is approved
 * @param arguments the call's arguments as the server shows them: JSON text, cut to 4 KiB, secrets
 *     redacted (kept as the JSON value sent, so a server that sends an object is read too)
 * @param requester who the session belongs to, on whose behalf the agent asked
 * @param state {@code pending | approved | rejected | expired | cancelled}, kept as text so a new
 *     state does not break the client
 * @param decidedBy who decided ({@code gateway} for an external gateway), once decided
 * @param json the object as the server sent it
 */
public record Approval(
    ApprovalId id,
    Optional<SessionId> sessionId,
    String tool,
    String argumentsDigest,
    Optional<JsonNode> arguments,
    String requester,
    String state,
    Optional<String> reason,
    Optional<String> decidedBy,
    Optional<Instant> createdAt,
    Optional<Instant> expiresAt,
    Optional<Instant> decidedAt,
    @JacksonInject(value = Json.RAW, useInput = OptBoolean.FALSE) JsonNode json) {

  public Approval {
    Objects.requireNonNull(id, "approval id is required");
    tool = Objects.requireNonNullElse(tool, "");
    argumentsDigest = Objects.requireNonNullElse(argumentsDigest, "");
    requester = Objects.requireNonNullElse(requester, "");
    state = Objects.requireNonNullElse(state, "");
  }

  /** Whether it still waits for a decision (the tool call is held until it gets one). */
  public boolean isPending() {
    return "pending".equals(state);
  }

  /** The arguments as text: the server's JSON text as sent, or the JSON value written out. */
  public String argumentsText() {
    return arguments.map(a -> a.isString() ? a.asString() : a.toString()).orElse("");
  }

  /**
   * The request part of the id, after the session's: what a person reads and types (the session is
   * named already).
   */
  public String requestId() {
    return id.value().substring(id.value().indexOf(':') + 1);
  }

  /** A decision on a pending approval ({@code POST /sessions/{id}/approvals/{approvalId}}). */
  public enum Decision {
    /** The held tool call is released and runs. */
    APPROVE,
    /** The held tool call is dropped; the agent's turn ends with the reason. */
    REJECT;

    /** {@code approve} or {@code reject}, as the route's body spells it. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
