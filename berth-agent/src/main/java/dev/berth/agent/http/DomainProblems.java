package dev.berth.agent.http;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.error.BerthException;
import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.ForbiddenException;
import dev.berth.core.error.IllegalTransitionException;
import dev.berth.core.error.IntentSupersededException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.IsolationUnavailableException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.NotRunningException;
import dev.berth.core.error.PreconditionFailedException;
import dev.berth.core.error.PromptTooLargeException;
import dev.berth.core.error.QuotaExceededException;
import dev.berth.core.error.RecoveryRefusedException;
import dev.berth.core.error.RuntimeUnavailableException;
import dev.berth.core.error.SnapshotRefusedException;
import dev.berth.core.error.SnapshotUnavailableException;
import dev.berth.core.error.StaleFenceException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.SuspendingException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.error.WaitExpiredException;
import dev.berth.core.error.WorkloadNotAllowedException;
import dev.berth.core.error.WorkloadUnavailableException;
import dev.berth.protocol.problem.AgentReason;

/**
 * The agent's answer to a rule of the domain: each {@link BerthException} with its HTTP status and
 * the protocol's reason for it (spelled as the exception's own {@code reason()}).
 */
final class DomainProblems {

  private DomainProblems() {}

  static Problems.Kind kindOf(BerthException domain) {
    return switch (domain) {
      case InvalidValueException e -> kind(400, AgentReason.INVALID_INPUT);
      case NotFoundException e -> kind(404, AgentReason.NOT_FOUND);
      case DeadlineExceededException e -> kind(408, AgentReason.DEADLINE_EXCEEDED);
      case StaleIntentException e -> kind(409, AgentReason.STALE_INTENT);
      case TerminalIntentException e -> kind(409, AgentReason.SESSION_TERMINATING);
      case VersionConflictException e -> kind(409, AgentReason.CONFLICT);
      case StaleFenceException e -> kind(409, AgentReason.LEASE_LOST);
      case AlreadyExistsException e -> kind(409, AgentReason.ALREADY_EXISTS);
      case IllegalTransitionException e -> kind(409, AgentReason.INVALID_STATE);
      case AgentUnreachableException e -> kind(502, AgentReason.AGENT_UNREACHABLE);
      case ForbiddenException e -> kind(403, AgentReason.FORBIDDEN);
      case WorkloadNotAllowedException e -> kind(403, AgentReason.WORKLOAD_NOT_ALLOWED);
      case QuotaExceededException e -> kind(429, AgentReason.QUOTA_EXCEEDED);
      // The control plane's refusals; the agent raises none of them, but answers them as it would.
      case PreconditionFailedException e -> kind(412, AgentReason.PRECONDITION_FAILED);
      case SuspendingException e -> kind(409, AgentReason.SUSPENDING);
      case IntentSupersededException e -> kind(409, AgentReason.CONFLICT);
      case SnapshotRefusedException e -> kind(422, AgentReason.SNAPSHOT_REFUSED);
      case NotRunningException e -> kind(422, AgentReason.INVALID_STATE);
      case RecoveryRefusedException e -> kind(409, recovery(e.why()));
      case WaitExpiredException e -> kind(504, AgentReason.DEADLINE_EXCEEDED);
      case SnapshotUnavailableException e -> kind(503, AgentReason.SNAPSHOT_UNAVAILABLE);
      case RuntimeUnavailableException e -> kind(503, AgentReason.RUNTIME_UNAVAILABLE);
      case IsolationUnavailableException e -> kind(503, AgentReason.ISOLATION_UNAVAILABLE);
      case WorkloadUnavailableException e -> kind(503, AgentReason.WORKLOAD_UNAVAILABLE);
      case PromptTooLargeException e -> kind(413, AgentReason.PROMPT_TOO_LARGE);
      case ApprovalRefusedException e ->
          e.why() == ApprovalRefusedException.Why.APPROVAL_NOT_FOUND
              ? kind(404, AgentReason.NOT_FOUND)
              : kind(409, AgentReason.CONFLICT);
    };
  }

  private static AgentReason recovery(RecoveryRefusedException.Why why) {
    return switch (why) {
      case INVALID_STATE -> AgentReason.INVALID_STATE;
      case ALREADY_RECOVERED -> AgentReason.ALREADY_RECOVERED;
      case NOT_RECOVERABLE -> AgentReason.NOT_RECOVERABLE;
      case RECOVERY_WINDOW_ENDED -> AgentReason.RECOVERY_WINDOW_ENDED;
    };
  }

  private static Problems.Kind kind(int status, AgentReason reason) {
    return new Problems.Kind(status, reason);
  }
}
