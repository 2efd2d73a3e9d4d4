// "Delete session?": names the target, says what is lost (a snapshot's archive too), starts on
// Cancel, stays open with the server's message when deletion fails so the user can retry.

import { useRef, useState } from "react";
import { api, ApiError } from "../api/client";
import type { Session } from "../api/types";
import { Dialog } from "./Dialog";

export function ConfirmDelete(props: {
  session: Pick<Session, "id" | "name" | "state">;
  onCancel(): void;
  onDeleted(gone: boolean): void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const cancelButton = useRef<HTMLButtonElement>(null);
  const { session } = props;

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api.remove(session.id);
      props.onDeleted(answer === undefined);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        props.onDeleted(true); // already gone: the list just needs refreshing
        return;
      }
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title="Delete session?"
      role="alertdialog"
      onCancel={props.onCancel}
      busy={busy}
      initialFocus={cancelButton}
      describedBy="delete-text"
      testId="delete-dialog"
    >
      <p id="delete-text">
        This stops the session and reclaims its runtime, if any; it will no longer be accessible.
        {session.state === "snapshot"
          ? " Its snapshot is kept for the server's recovery window only (7 days by default): until then it can be recovered from Recently deleted."
          : " Only a session that was snapshotted can be recovered (from its last snapshot, during the server's recovery window); anything since is lost."}
      </p>
      <div className="dialog-target">
        <strong>{session.name}</strong>
        <code>session/{session.id}</code>
      </div>
      {error && (
        <p className="form-error" role="alert">
          Delete failed: {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" ref={cancelButton} className="btn" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="btn btn-danger" onClick={confirm} disabled={busy} data-testid="confirm-delete">
          {busy ? "Deleting…" : "Delete session"}
        </button>
      </div>
    </Dialog>
  );
}
