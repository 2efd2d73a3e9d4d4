package dev.berth.core.access;

import dev.berth.core.idle.IdlePolicy;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;

/**
 * When a waiting request has its answer: the predicates a request waits on, and the one rule both
 * an access and the idle policy apply to tell whether an idle suspend can still be taken back.
 */
public final class Settling {

  private Settling() {}

  /** A new session got running, or never will (failed, deleted, or suspended meanwhile). */
  public static boolean started(Session s) {
    return switch (s.phase()) {
      case READY, FAILED, TERMINATING, TERMINATED, SUSPENDING, SUSPENDED -> true;
      case REQUESTED, PROVISIONING, RESUMING -> false;
    };
  }

  /**
   * A session asked to run got there or never will: unlike {@link #started}, a phase on the way
   * down (a suspend being aborted, a snapshot about to be restored) is not an answer.
   */
  public static boolean running(Session s) {
    return switch (s.phase()) {
      case READY, FAILED, TERMINATING, TERMINATED -> true;
      case REQUESTED, PROVISIONING, RESUMING, SUSPENDING, SUSPENDED ->
          s.intent().desired() != DesiredState.RUNNING;
    };
  }

  /** A suspend finished, or was given up or overtaken. */
  public static boolean suspended(Session s) {
    return s.phase() == Phase.SUSPENDED
        || s.phase() == Phase.FAILED
        || s.phase() == Phase.TERMINATING
        || s.phase() == Phase.TERMINATED
        || s.intent().desired() != DesiredState.SUSPENDED;
  }

  public static boolean terminated(Session s) {
    return s.phase() == Phase.TERMINATED;
  }

  /** The session's intent is the idle policy's suspend (whatever the suspend got to). */
  public static boolean askedToSuspendByIdlePolicy(Session s) {
    return s.intent().desired() == DesiredState.SUSPENDED
        && s.intent().requestedBy().equals(IdlePolicy.ACTOR);
  }

  /** A suspend the idle policy asked for that has not finished: an access still wins over it. */
  public static boolean suspendedByIdlePolicy(Session s) {
    return askedToSuspendByIdlePolicy(s)
        && (s.phase() == Phase.READY || s.phase() == Phase.SUSPENDING);
  }
}
