// xterm.js on the attach WebSocket. The terminal fits its box and follows it (window resizes, the
// side panel folding), telling the shell its new size; it is the one place where the session's raw
// output is rendered.

import { useEffect, useRef } from "react";
import { Terminal as XTerm } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import "@xterm/xterm/css/xterm.css";
import { attachPorts } from "../lib/sessionPorts";
import { isTerminalAnswer } from "./answers";
import { AttachConnection, type AttachStatus } from "./attach";

export interface TerminalHandle {
  connection: AttachConnection;
  term: XTerm;
}

export function Terminal(props: {
  sessionId: string;
  onStatus(status: AttachStatus, detail?: string): void;
  onSuspended(): void;
  onEnded(reason: string): void;
  onReady?(handle: TerminalHandle | undefined): void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const callbacks = useRef(props);
  callbacks.current = props;

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const term = new XTerm({
      cursorBlink: true,
      convertEol: false,
      scrollback: 10000,
      fontFamily: 'ui-monospace, "JetBrains Mono", "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 14,
      theme: {
        background: "#0b1016",
        foreground: "#d8dee9",
        cursor: "#5eead4",
        selectionBackground: "#2b4a5a",
      },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    // Keystrokes the connection could neither send nor keep (a long outage) are said to be lost,
    // once per outage, rather than vanishing.
    let warned = false;
    // Once the shell exited, the next key (sent as typed) starts a new shell and clears the note.
    let shellGone = false;
    // Until the replayed output is parsed, what the terminal "types" by itself is its answer to a
    // query in the history (the agent neutralises those; this is the second guard): dropped.
    let replayLeft = 0;
    const connection = new AttachConnection(attachPorts(props.sessionId), {
      output: (bytes) =>
        term.write(bytes, () => {
          replayLeft = Math.max(0, replayLeft - bytes.length);
        }),
      replay: (offset, live) => {
        replayLeft = Math.max(0, live - offset);
      },
      status: (s, d) => {
        if (s === "attached") warned = false;
        callbacks.current.onStatus(s, d);
      },
      reset: () => term.write("\r\n\x1b[2m[berth] earlier output was dropped from the log\x1b[0m\r\n"),
      // eslint-disable-next-line no-control-regex -- a refusal is shown on one line: no control character of its own
      refused: (message) => term.write(`\r\n\x1b[33m[berth] ${message.replace(/[\x00-\x1f]/g, " ")}\x1b[0m\r\n`),
      // The agent's marker line says it in the output; the status bar says what to do next.
      shellExited: (status) => {
        shellGone = true;
        callbacks.current.onStatus("attached", `the shell exited with status ${status}; press Enter for a new one`);
      },
      suspended: () => callbacks.current.onSuspended(),
      ended: (reason) => callbacks.current.onEnded(reason),
    });
    const sent = (ok: boolean) => {
      if (ok || warned) return;
      warned = true;
      term.write("\r\n\x1b[33m[berth] not connected: keystrokes are being dropped\x1b[0m\r\n");
    };
    const input = term.onData((data) => {
      if (replayLeft > 0 && isTerminalAnswer(data)) return;
      if (shellGone) {
        shellGone = false;
        callbacks.current.onStatus("attached");
      }
      sent(connection.send(data));
    });
    // Binary strings (some mouse reports) carry one byte per character, not UTF-16 text.
    const binary = term.onBinary((data) => sent(connection.send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff))));
    let frame = 0;
    const refit = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        if (element.clientWidth === 0 || element.clientHeight === 0) return;
        fit.fit();
        connection.resize(term.cols, term.rows);
      });
    };
    const observer = new ResizeObserver(refit);
    observer.observe(element);
    fit.fit();
    connection.resize(term.cols, term.rows);
    connection.start();
    term.focus();
    callbacks.current.onReady?.({ connection, term });
    return () => {
      callbacks.current.onReady?.(undefined);
      cancelAnimationFrame(frame);
      observer.disconnect();
      input.dispose();
      binary.dispose();
      connection.stop();
      term.dispose();
    };
  }, [props.sessionId]);

  return <div ref={box} className="terminal" data-testid="terminal" />;
}

