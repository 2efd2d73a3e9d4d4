package dev.berth.core.agent;

import dev.berth.core.session.ArchiveRef;
import java.time.Duration;

/** The versioned commands the control plane sends to a session's agent. */
public sealed interface AgentCommand {
  CommandContext context();

  /** Close admission, pause the workload, capture and stream archive generation G. */
  record PrepareCheckpoint(CommandContext context, long generation) implements AgentCommand {}

  /** Give up generation G: resume the workload and reopen admission. */
  record AbortCheckpoint(CommandContext context, long generation) implements AgentCommand {}

  /** Restore the session's state from an archive into this runtime. */
  record Restore(CommandContext context, ArchiveRef archive) implements AgentCommand {}

  /** Stop the workload for good and write the termination tombstone. */
  record Terminate(CommandContext context) implements AgentCommand {}

  /** Renew the control lease for {@code ttl}. */
  record RenewLease(CommandContext context, Duration ttl) implements AgentCommand {}
}
