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
    const focusables = () => Array.from(box.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? []);
    const target = props.initialFocus?.current ?? focusables()[0];
    target?.focus();

    // Keys are handled at the document while the dialog is open, so Escape and the Tab trap work
    // even when focus has left it (a click on the overlay, a blur, a toast).
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        if (!busyRef.current) cancel.current();
        return;
      }
      if (event.key !== "Tab" || !box.current) return;
      const items = focusables();
      if (items.length === 0) {
        event.preventDefault();
        return;
      }
      const first = items[0];
      const last = items[items.length - 1];
      const active = document.activeElement;
      if (!box.current.contains(active)) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      } else if (event.shiftKey && active === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && active === last) {
        event.preventDefault();
        first.focus();
      }
    };
    // Focus that lands outside the dialog (anything not inert: another portal) is pulled back.
    const onFocusIn = (event: FocusEvent) => {
      const element = event.target as Node | null;
      if (!box.current || (element && box.current.contains(element))) return;
      (focusables()[0] ?? box.current).focus();
    };
    document.addEventListener("keydown", onKeyDown, true);
    document.addEventListener("focusin", onFocusIn);
    return () => {
      document.removeEventListener("keydown", onKeyDown, true);
      document.removeEventListener("focusin", onFocusIn);
      root?.removeAttribute("inert");
      if (previous && previous !== document.body && document.contains(previous)) previous.focus();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per opening: focus moves in (to initialFocus) when the dialog opens and back when it closes
  }, []);

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
        tabIndex={-1}
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
