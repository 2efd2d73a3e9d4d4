package dev.berth.core.agent;

import dev.berth.core.session.ArchiveRef;

/** What an agent answers to a command it accepted. */
public sealed interface AgentReply {

  /** Done (or already done: commands are idempotent by operation id). */
  record Accepted() implements AgentReply {}

  /** The checkpoint was taken and committed to the archive store. */
  record CheckpointTaken(ArchiveRef archive) implements AgentReply {}
}
