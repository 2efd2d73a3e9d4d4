package dev.berth.core.lifecycle;

/** What one reconcile step decided: take another step, or end the pass and why. */
enum Next {
  /** The step wrote progress; the pass reads the session again and takes the next step. */
  CONTINUE,
  /** The session matches its intent. */
  CONVERGED,
  /** Progress waits on the outside world; a later pass tries again. */
  WAITING,
  /** The runtime knows newer facts than the store. */
  RECOVERY_NEEDED
}
