// A modal dialog: focus moves into it (to `initialFocus`, else the first control), Tab and
// Shift+Tab stay inside, Escape cancels (unless busy), and focus returns to where it was when the
// dialog closes. The page behind is inert (the dialog lives outside #root, in a portal).

import { useEffect, useRef, type ReactNode, type RefObject } from "react";
import { createPortal } from "react-dom";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Dialog(props: {
  title: string;
  role?: "dialog" | "alertdialog";
  onCancel(): void;
  busy?: boolean;
  initialFocus?: RefObject<HTMLElement | null>;
  describedBy?: string;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const titleId = useRef(`dialog-title-${Math.random().toString(36).slice(2)}`).current;
  const { onCancel, busy } = props;
  const cancel = useRef(onCancel);
  cancel.current = onCancel;
  const busyRef = useRef(busy);
  busyRef.current = busy;

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const root = document.getElementById("root");
    root?.setAttribute("inert", "");
    const target = props.initialFocus?.current ?? box.current?.querySelector<HTMLElement>(FOCUSABLE);
    target?.focus();
    return () => {
      root?.removeAttribute("inert");
      if (previous && document.contains(previous)) previous.focus();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      if (!busyRef.current) cancel.current();
      return;
    }
    if (event.key !== "Tab" || !box.current) return;
    const items = Array.from(box.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && !busy && onCancel()}>
      <div
        ref={box}
        className={`dialog ${props.className ?? ""}`}
        role={props.role ?? "dialog"}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={props.describedBy}
        data-testid={props.testId}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="dialog-title">
          {props.title}
        </h2>
        {props.children}
      </div>
    </div>,
    document.body,
  );
}
