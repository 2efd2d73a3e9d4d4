package dev.berth.core.session;

/** What the session's owner wants: a running session, a suspended one, or none at all. */
public enum DesiredState {
  RUNNING,
  SUSPENDED,
  /** Final: once desired, no other intent can follow. */
  TERMINATED
}
