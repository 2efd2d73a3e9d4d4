// New session (`/new`, a dialog over the console): name, workload type from GET /config, model for
// agent types, plugins from the marketplace for the types that take them. Creation answers at once (?wait=false); the dialog then follows the session's
// provisioning operation step by step and opens the workspace when the session is active.

import { useEffect, useRef, useState } from "react";
import { api, ApiError } from "../api/client";
import type { Config, Operation, Session } from "../api/types";
import { Dialog } from "../components/Dialog";
import { stepLabel, time } from "../lib/format";
import { usePolling } from "../lib/polling";
import { sessionPath, useRouter } from "../lib/router";
import { errorText } from "../lib/sessionPorts";
import { lifecycle } from "../api/types";
import { stateDetail, stateSentence } from "../lib/describe";

const DESCRIPTIONS: Record<string, string> = {
  shell: "Interactive bash in its own sandbox. You type the commands.",
  "claude-code": "Claude Code. You send prompts, it does the work.",
  codex: "Codex. You send prompts, it does the work.",
  "minimax-code": "MiniMax Code (Claude Code's CLI on MiniMax). You send prompts.",
};

type Phase =
  | { kind: "form"; error?: string }
  | { kind: "provisioning"; session: Session; operation?: Operation; error?: string };

export function NewSession() {
  const { navigate } = useRouter();
  const [config, setConfig] = useState<Config>();
  const [configError, setConfigError] = useState<string>();
  const [name, setName] = useState("");
  const [type, setType] = useState("shell");
  const [model, setModel] = useState("");
  const [plugins, setPlugins] = useState<string[]>([]);
  const [phase, setPhase] = useState<Phase>({ kind: "form" });
  const [submitting, setSubmitting] = useState(false);
  const nameInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    api.config().then(
      (c) => {
        setConfig(c);
        if (!c.workloadTypes.includes("shell") && c.workloadTypes.length > 0) setType(c.workloadTypes[0]);
      },
      (e) => setConfigError(errorText(e)),
    );
  }, []);

  const close = () => navigate("/");

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!name.trim() || submitting) return;
    setSubmitting(true);
    try {
      const body: { name: string; workloadType: string; model?: string; plugins?: string[] } = {
        name: name.trim(),
        workloadType: type,
      };
      if (type !== "shell" && model.trim()) body.model = model.trim();
      if (takesPlugins && plugins.length > 0) body.plugins = plugins;
      const session = await api.create(body);
      setPhase({ kind: "provisioning", session });
    } catch (e) {
      setPhase({ kind: "form", error: errorText(e) });
    } finally {
      setSubmitting(false);
    }
  };

  const types = config?.workloadTypes ?? ["shell"];
  // Each agent type's own catalog; the original's claudeCode member where a server has no other.
  const offer = config?.agents?.[type] ?? (type === "claude-code" ? config?.claudeCode : undefined);
  const catalog = offer?.models ?? [];
  const defaultModel = offer?.defaultModel;
  const marketplace = config?.plugins ?? [];
  const takesPlugins = !!config?.agents?.[type]?.takesPlugins && marketplace.length > 0;
  const toggle = (plugin: string) =>
    setPlugins((chosen) => (chosen.includes(plugin) ? chosen.filter((p) => p !== plugin) : [...chosen, plugin]));

  if (phase.kind === "provisioning") {
    return (
      <Dialog title={`Creating “${phase.session.name}”`} onCancel={close} testId="new-session-dialog">
        <Provisioning
          session={phase.session}
          onActive={(s) => navigate(sessionPath(s), { replace: true })}
          onFailed={(error) => setPhase({ kind: "form", error })}
        />
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={close}>
            Continue in the background
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title="New session" onCancel={close} initialFocus={nameInput} testId="new-session-dialog" className="dialog-wide">
      <form onSubmit={submit} className="form">
        <label className="field">
          <span>Name</span>
          <input
            ref={nameInput}
            name="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="api-gateway-dev"
            autoComplete="off"
            maxLength={200}
            required
          />
        </label>
        <fieldset className="field">
          <legend>Workload</legend>
          {configError && <p className="hint">Workload types could not be loaded ({configError}); shell is offered.</p>}
          <div className="radio-cards">
            {types.map((t) => (
              <label key={t} className={`radio-card ${type === t ? "checked" : ""}`}>
                <input type="radio" name="workloadType" value={t} checked={type === t} onChange={() => setType(t)} />
                <span className="radio-title">{t === "shell" ? "$ shell" : `◇ ${t}`}</span>
                <span className="radio-text">{DESCRIPTIONS[t] ?? "A workload this server offers."}</span>
              </label>
            ))}
          </div>
        </fieldset>
        {type !== "shell" && (
          <label className="field">
            <span>Model</span>
            {catalog.length > 0 ? (
              <select value={model} onChange={(e) => setModel(e.target.value)}>
                <option value="">{defaultModel ? `${defaultModel} (platform default)` : "Platform default"}</option>
                {catalog
                  .filter((m) => m !== defaultModel)
                  .map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
              </select>
            ) : (
              <>
                <input
                  value={model}
                  onChange={(e) => setModel(e.target.value)}
                  placeholder={defaultModel ? `${defaultModel} (platform default)` : "Platform default"}
                />
                <span className="hint">Leave blank to use {defaultModel ?? "the platform default"}.</span>
              </>
            )}
          </label>
        )}
        {takesPlugins && (
          <fieldset className="field" data-testid="plugins">
            <legend>Plugins</legend>
            {marketplace.map((plugin) => (
              <label key={plugin} className="checkbox">
                <input type="checkbox" checked={plugins.includes(plugin)} onChange={() => toggle(plugin)} /> {plugin}
              </label>
            ))}
            <span className="hint">None by default; the session keeps the ones chosen for its whole life.</span>
          </fieldset>
        )}
        <p className="hint">
          The workload type{type !== "shell" ? ", model and plugins" : ""} cannot be changed after creation.
        </p>
        {phase.error && (
          <p className="form-error" role="alert">
            {phase.error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!name.trim() || submitting} data-testid="create-session">
            {submitting ? "Creating…" : "Create"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

const PROVISION_STEPS = ["PLAN_RUNTIME", "CREATE_RUNTIME", "AWAIT_READY"];

/** The provisioning operation's steps as they are reached, until the session is active. */
export function Provisioning(props: {
  session: Session;
  onActive(session: Session): void;
  onFailed(error: string): void;
}) {
  const [session, setSession] = useState(props.session);
  const [operation, setOperation] = useState<Operation>();
  const [error, setError] = useState<string>();
  const handlers = useRef(props);
  handlers.current = props;

  // Only while the page is visible; errors back off; a session that is gone, terminated or failed
  // ends it.
  usePolling(
    async (signal) => {
      let current: Session;
      let operations: Operation[];
      try {
        [current, operations] = await Promise.all([
          api.session(props.session.id, signal),
          api.operations(props.session.id, signal),
        ]);
      } catch (e) {
        if (signal.aborted) return true;
        if (e instanceof ApiError && e.status === 404) {
          handlers.current.onFailed("Provisioning failed: the session no longer exists");
          return true;
        }
        setError(errorText(e));
        throw e;
      }
      if (signal.aborted) return true;
      setSession(current);
      setOperation(operations.find((o) => o.type === "PROVISION"));
      setError(undefined);
      // A session still provisioning already reads active: the phase says when it is ready.
      if (lifecycle(current) === "active" || lifecycle(current) === "idle") {
        setTimeout(() => !signal.aborted && handlers.current.onActive(current), 300);
        return true;
      }
      if (current.state === "failed") {
        handlers.current.onFailed(
          `Provisioning failed: ${current.failure?.message ?? current.failure?.reason ?? "unknown reason"}`,
        );
        return true;
      }
      if (current.state === "deleted") {
        handlers.current.onFailed("Provisioning failed: the session was deleted");
        return true;
      }
      return false;
    },
    400,
    [props.session.id],
  );

  const reached = new Map((operation?.steps ?? []).map((s) => [s.name, s]));
  const ready = lifecycle(session) === "active" || lifecycle(session) === "idle";
  const extra = (operation?.steps ?? []).filter((s) => !PROVISION_STEPS.includes(s.name));
  return (
    <div className="progress" aria-live="polite" data-testid="provisioning">
      <p className="muted">
        workloadType={session.workloadType}
        {session.model ? ` · model=${session.model}` : ""}
        {session.plugins?.length ? ` · plugins=${session.plugins.join(",")}` : ""} ·{" "}
        <span title={stateDetail(session)}>{stateSentence(session)}</span>
      </p>
      <ol className="steps">
        <Step done label="Register session" detail={`session/${session.id}`} />
        {PROVISION_STEPS.map((name, i) => {
          const step = reached.get(name);
          const done = !!step || ready || (name === "AWAIT_READY" && ready);
          const current = !done && PROVISION_STEPS.slice(0, i).every((n) => reached.has(n));
          return (
            <Step
              key={name}
              done={done}
              current={current}
              label={stepLabel(name)}
              detail={step ? `${step.detail} · ${time(step.at)}` : undefined}
            />
          );
        })}
        {extra.map((s) => (
          <Step key={s.name + s.at} done label={stepLabel(s.name)} detail={`${s.detail} · ${time(s.at)}`} />
        ))}
        <Step done={ready} current={!ready} label="Open the workspace" detail={session.pod ? `runtime/${session.pod}` : undefined} />
      </ol>
      {operation?.error && <p className="form-error">{operation.error.message}</p>}
      {error && <p className="hint">Still trying: {error}</p>}
    </div>
  );
}

export function Step(props: { done: boolean; current?: boolean; label: string; detail?: string }) {
  return (
    <li className={`step ${props.done ? "done" : props.current ? "current" : "todo"}`}>
      <span className="step-mark" aria-hidden="true">
        {props.done ? "✓" : props.current ? "●" : "○"}
      </span>
      <span className="step-label">
        {props.label}
        <span className="sr-only">{props.done ? " (done)" : props.current ? " (in progress)" : ""}</span>
      </span>
      {props.detail && <span className="step-detail">{props.detail}</span>}
    </li>
  );
}
