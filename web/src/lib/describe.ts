// Sentences for the lifecycle words the API uses (phases, operation types and results), so that a
// screen says what a session is doing rather than showing an internal token; the token itself
// stays in the badge and in titles for whoever needs it.

import type { Operation, Session } from "../api/types";

/** What a session is doing, as a sentence: "Suspending…", "Archived, restores on access". */
export function stateSentence(s: Pick<Session, "state" | "phase">): string {
  switch (s.phase) {
    case "REQUESTED":
      return "Waiting to start…";
    case "PROVISIONING":
      return "Starting its runtime…";
    case "SUSPENDING":
      return "Suspending: archiving its state…";
    case "SUSPENDED":
      return "Archived, restores on access";
    case "RESUMING":
      return "Restoring from its archive…";
    case "TERMINATING":
      return "Being deleted…";
    case "TERMINATED":
      return "Deleted";
    case "FAILED":
      return "Failed: nothing can serve it until it is deleted";
    default:
      return byState(s.state);
  }
}

function byState(state: Session["state"]): string {
  switch (state) {
    case "active":
      return "Running";
    case "idle":
      return "Idle, runtime still held";
    case "snapshot":
      return "Archived, restores on access";
    case "failed":
      return "Failed: nothing can serve it until it is deleted";
    case "deleted":
      return "Deleted";
    default:
      return state;
  }
}

/** The exact state for a title: "state snapshot · phase SUSPENDED". */
export function stateDetail(s: Pick<Session, "state" | "phase">): string {
  return `state ${s.state} · phase ${s.phase}`;
}

const OPERATIONS: Record<Operation["type"], string> = {
  PROVISION: "Start",
  SUSPEND: "Suspend",
  RESUME: "Restore",
  TERMINATE: "Delete",
  CLEANUP: "Clean-up",
  RECOVER: "Recovery",
  GC_DELETE: "Archive removal",
};

/** An operation's type as a word: "Restore" for RESUME. */
export function operationLabel(type: Operation["type"]): string {
  return OPERATIONS[type] ?? type;
}

const RESULTS: Record<Operation["state"], string> = {
  PENDING: "waiting",
  RUNNING: "in progress",
  SUCCEEDED: "done",
  FAILED: "failed",
  SUPERSEDED: "replaced by a newer request",
};

/** An operation's state as words: "in progress" for RUNNING. */
export function operationResult(state: Operation["state"]): string {
  return RESULTS[state] ?? state;
}
