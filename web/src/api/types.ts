// The wire objects of the public API (docs/api.md). Only what the UI reads is typed; the server
// may send more.

/**
 * The original's states for every session an access can serve (one provisioning reads `active`, one
 * restoring `snapshot`), `failed` for one none can, `deleted` for one listed with `deleted=true`.
 */
export type SessionState = "active" | "idle" | "snapshot" | "failed" | "deleted";

/** What a session is doing, for people: the state, or the phase where that says more. */
export type Lifecycle = SessionState | "provisioning" | "suspending" | "restoring" | "deleting";

export function lifecycle(s: Pick<Session, "state" | "phase">): Lifecycle {
  switch (s.phase) {
    case "REQUESTED":
    case "PROVISIONING":
      return "provisioning";
    case "SUSPENDING":
      return "suspending";
    case "RESUMING":
      return "restoring";
    case "TERMINATING":
      return "deleting";
    case "TERMINATED":
      return "deleted";
    default:
      return s.state;
  }
}

export interface Checkpoint {
  ref: string;
  sizeBytes: number;
  createdAt: string;
  reclaimed?: string;
}

export interface RuntimeRef {
  kind: string;
  name: string;
  incarnation: number;
  startedAt?: string;
  lastObservedAt?: string;
}

export interface ArchiveRef {
  generation: number;
  uri: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
  contents: string[];
  /** The runtime it was taken from. */
  source?: string;
  /** What the state held and the archive left out, with why. */
  skipped?: { path: string; reason: string }[];
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface Session {
  id: string;
  name: string;
  workloadType: string;
  state: SessionState;
  createdAt: string;
  lastAccess: string;
  pod?: string;
  model?: string;
  checkpoint?: Checkpoint;
  /** Listed with `deleted=true` only: when the deletion was accepted. */
  deletedAt?: string;
  /** Listed with `deleted=true` only: whether its last archive is still kept for `recover`. */
  recoverable?: boolean;
  recoverableUntil?: string;
  tenant?: string;
  phase?: string;
  intentVersion?: number;
  intent?: { desired: string; version: number; requestedAt: string; requestedBy: string; reason: string };
  runtime?: RuntimeRef;
  archive?: ArchiveRef;
  conditions?: Condition[];
  reservation?: string;
  activity?: { lastAccess: string; keepAliveUntil?: string };
  failure?: { reason: string; message: string };
  operation?: string;
  /** While a restore streams its archive into the new runtime. */
  restore?: RestoreProgress;
}

export interface RestoreProgress {
  generation: number;
  bytes: number;
  totalBytes: number;
  updatedAt: string;
}

export interface SessionList {
  sessions: Session[];
  nextPageToken?: string;
}

export interface Config {
  workloadTypes: string[];
  claudeCode?: { defaultModel?: string; models?: string[] };
}

export interface ReadResult {
  session: Session;
  path: string;
  payload: string;
  payloadBase64: string;
  offset: number;
  nextOffset: number;
}

export interface IdleView {
  decision: "active" | "idle" | "held" | "suspend" | "not-applicable";
  reason: string;
  hold?: string;
  idleAt?: string;
  suspendAt?: string;
  heldUntil?: string;
  lastAccess: string;
  suspendEnabled: boolean;
}

export interface OperationStep {
  name: string;
  at: string;
  detail: string;
}

export interface Operation {
  id: string;
  sessionId: string;
  type: string;
  state: "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "SUPERSEDED";
  intentVersion: number;
  steps: OperationStep[];
  attempts: number;
  deadline: string;
  error?: { reason: string; message: string };
  createdAt: string;
  finishedAt?: string;
  progress?: RestoreProgress;
}

export interface Execution {
  id: string;
  command: string;
  state: "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED" | "LOST";
  exitCode?: number;
  submittedAt: string;
  startedAt?: string;
  finishedAt?: string;
  timedOut: boolean;
  output?: { nextOffset: number };
}

/** The agent's report on the runtime (GET /sessions/{id}/runtime). */
export interface RuntimeStatus {
  state?: string;
  health?: string;
  busy?: boolean;
  foreground?: string;
  lastOutputAt?: string;
  isolation?: {
    sandbox?: string;
    namespaces?: string[];
    cgroup?: string;
    limits?: Record<string, unknown>;
    cpuLimited?: boolean;
    /** How the disk cap is enforced: loop or fuse (an ext4 image per runtime), none (measured only). */
    disk?: "loop" | "fuse" | "none";
    filesystem?: string[];
    user?: { uid?: number; name?: string; hostUid?: number | null; dedicated?: boolean };
    network?: { mode?: string; blocked?: string[] };
    seccomp?: { mode?: string; denied?: string[] };
    /** What this host does not enforce, one sentence each; empty when fully isolated. */
    weaknesses?: string[];
  };
  /** What the runtime's state (home, /tmp, shell state, output) takes against its disk cap. */
  disk?: { capBytes: number; usedBytes: number; availableBytes: number; enforced: boolean };
  output?: { startOffset: number; nextOffset: number };
}
