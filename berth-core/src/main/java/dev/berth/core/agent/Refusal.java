package dev.berth.core.agent;

/**
 * What the domain makes of an agent's refusal: the few refusals a use case or the reconciler
 * decides on, and {@link #OTHER} for the rest, which are reported as the agent worded them. The
 * agent's own reasons are the protocol's; the adapter that speaks to the agent maps them to these.
 */
public enum Refusal {
  /** The runtime closed admission for a suspend: the call may be served again once it is active. */
  SUSPENDING,
  /** A restore refused the archive: it escapes its target, smuggles a special file, is a bomb. */
  ARCHIVE_UNSAFE,
  /** A restore refused the archive: it is not a well-formed archive of the session. */
  ARCHIVE_CORRUPT,
  /** A restore found no archive to send: the archive store does not hold it. */
  ARCHIVE_MISSING,
  /** A checkpoint refused: the restore of the archive it would make would refuse it. */
  ARCHIVE_REFUSED,
  /** A checkpoint refused: prompts still ran after the drain. */
  PROMPTS_RUNNING,
  /** Any other refusal: the domain has no rule of its own for it. */
  OTHER
}
