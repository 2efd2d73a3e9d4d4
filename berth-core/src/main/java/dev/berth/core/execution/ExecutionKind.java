package dev.berth.core.execution;

/** A command run to completion beside a shell, or a prompt run by an agent session. */
public enum ExecutionKind {
  COMMAND,
  PROMPT
}
