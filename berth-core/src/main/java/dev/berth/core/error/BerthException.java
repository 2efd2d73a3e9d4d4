package dev.berth.core.error;

import java.util.Objects;

/**
 * Root of Berth's domain exceptions. The family is closed so that the one place that maps errors to
 * HTTP answers (in the server) can switch over it exhaustively; each subtype carries a stable
 * machine {@link #reason()} that clients may rely on.
 */
public abstract sealed class BerthException extends RuntimeException
    permits IllegalTransitionException,
        StaleIntentException,
        TerminalIntentException,
        VersionConflictException,
        StaleFenceException,
        NotFoundException,
        AlreadyExistsException,
        AgentUnreachableException,
        DeadlineExceededException,
        InvalidValueException,
        ForbiddenException,
        WorkloadNotAllowedException,
        QuotaExceededException,
        PreconditionFailedException,
        SuspendingException,
        SnapshotUnavailableException,
        SnapshotRefusedException,
        IntentSupersededException,
        WaitExpiredException,
        NotRunningException,
        RuntimeUnavailableException,
        IsolationUnavailableException,
        WorkloadUnavailableException,
        PromptTooLargeException,
        RecoveryRefusedException,
        ApprovalRefusedException {

  private static final long serialVersionUID = 1L;

  protected BerthException(String message) {
    super(message);
  }

  protected BerthException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The message it was made with: never null, as every constructor takes one. */
  @Override
  public String getMessage() {
    return Objects.requireNonNull(super.getMessage());
  }

  /** A stable, upper-case machine reason such as {@code STALE_INTENT}. */
  public abstract String reason();
}
