package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentRefusedException;
import dev.berth.core.agent.Refusal;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.Failure;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Session;
import java.util.Optional;

/**
 * Resume: a SUSPENDED session gets runtime incarnation n+1, planned by name before it is created
 * (so a crash anywhere finds it again), and its committed archive is restored into it before it may
 * become READY. Creating the runtime and awaiting readiness is {@link ProvisionProtocol}'s part.
 *
 * <p>Failure modes: the restore is sent again on every pass that reaches it (the agent answers a
 * repeated restore of the same operation as it did the first); an archive the agent refuses as
 * unsafe, missing or corrupt fails the resume and the session, since retrying cannot help.
 */
final class ResumeProtocol {
  private final ReconcilePass pass;
  private final LifecyclePorts ports;

  ResumeProtocol(ReconcilePass pass) {
    this.pass = pass;
    this.ports = pass.ports();
  }

  /** SUSPENDED: plans the next runtime incarnation. */
  Next start(Session s) {
    Operation op = pass.begin(s, OperationType.RESUME, s.intent().version());
    pass.save(op.step(StepName.PLAN_RUNTIME, "incarnation " + (s.incarnation() + 1), pass.now()));
    pass.save(s, s.startResume(ports.runtime().kind(), pass.now()));
    return Next.CONTINUE;
  }

  /**
   * RESUMING, the runtime running ({@code observed}): restores the archive into it.
   *
   * @return empty when the archive was restored, else how the step ends instead
   */
  Optional<Next> restore(Session s, Session observed, Operation op) {
    // Sent on every pass that gets here, not only the one that recorded the step: a pass that
    // died (or lost the agent) after recording it left the runtime awaiting its archive, and
    // the agent answers a repeated restore of the same operation as it did the first.
    ArchiveRef archive = s.archive().orElseThrow();
    String runtimeName = s.runtime().orElseThrow().name();
    if (!op.hasStep(StepName.RESTORE_ARCHIVE, runtimeName)) {
      op = pass.save(op.step(StepName.RESTORE_ARCHIVE, runtimeName, pass.now()));
    }
    pass.reach("resume.restore");
    try {
      return pass.command(observed, new AgentCommand.Restore(pass.context(observed, op), archive));
    } catch (AgentRefusedException e) {
      Optional<FailureReason> refused = archiveRefused(e.refusal());
      if (refused.isEmpty()) {
        throw e; // not about the archive: the next pass tries again
      }
      return Optional.of(restoreRefused(s, op, archive, refused.get(), e));
    }
  }

  /** The failure of a restore the agent refused for its archive; empty for any other refusal. */
  private static Optional<FailureReason> archiveRefused(Refusal refusal) {
    return switch (refusal) {
      case ARCHIVE_UNSAFE -> Optional.of(FailureReason.ARCHIVE_UNSAFE);
      case ARCHIVE_CORRUPT -> Optional.of(FailureReason.ARCHIVE_CORRUPT);
      case ARCHIVE_MISSING -> Optional.of(FailureReason.ARCHIVE_MISSING);
      // A checkpoint's refusals, and the rest: not about the archive being restored.
      case ARCHIVE_REFUSED, PROMPTS_RUNNING, SUSPENDING, OTHER -> Optional.empty();
    };
  }

  /**
   * The agent will not restore the archive (unsafe or corrupt): retrying cannot help, so the resume
   * fails with the agent's reason and the session with it. The archive is kept (it may be inspected
   * or recovered by hand); the awaiting runtime goes when the session is deleted.
   */
  private Next restoreRefused(
      Session s, Operation op, ArchiveRef archive, FailureReason reason, AgentRefusedException e) {
    Failure why =
        new Failure(
            reason,
            "the agent refused to restore archive generation "
                + archive.generation()
                + " ("
                + archive.uri()
                + "): "
                + e.getMessage());
    return pass.fail(s, s, op, why);
  }
}
