package dev.berth.core.agent;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.session.RuntimeRef;

/**
 * Talks to the agent inside a session's runtime. The agent enforces the local contract by itself:
 * it rejects commands with an intent version below the highest it accepted, and commands past their
 * deadline, without side effects; a database transition alone is not enough.
 */
public interface AgentClient {

  /**
   * The agent's report.
   *
   * @throws AgentUnreachableException when the agent cannot be reached
   */
  AgentStatus status(RuntimeRef runtime);

  /**
   * Sends a command. Idempotent by the command's operation id together with what it names (the
   * generation of a checkpoint, the archive of a restore): a repeated command answers as before.
   *
   * @throws StaleIntentException when the agent already accepted a newer intent version
   * @throws DeadlineExceededException when the command's deadline passed
   * @throws AgentUnreachableException when the agent cannot be reached
   */
  AgentReply send(RuntimeRef runtime, AgentCommand command);
}
