// A "⋯" menu button (WAI-ARIA menu button pattern): Enter, Space or ArrowDown opens it with focus
// on the first item; arrows, Home and End move; Escape or Tab closes it and focus returns to the
// button; a click outside closes it.

import { useEffect, useRef, useState } from "react";

export interface MenuItem {
  label: string;
  danger?: boolean;
  onSelect(): void;
}

export function Menu(props: { label: string; items: MenuItem[]; testId?: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const menuId = useRef(`menu-${Math.random().toString(36).slice(2)}`).current;

  useEffect(() => {
    if (!open) return;
    list.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onDown = (event: MouseEvent) => {
      if (!list.current?.contains(event.target as Node) && event.target !== button.current) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  const onMenuKey = (event: React.KeyboardEvent) => {
    const items = Array.from(list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLElement);
    const focus = (i: number) => items[(i + items.length) % items.length]?.focus();
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        focus(at + 1);
        break;
      case "ArrowUp":
        event.preventDefault();
        focus(at - 1);
        break;
      case "Home":
        event.preventDefault();
        focus(0);
        break;
      case "End":
        event.preventDefault();
        focus(items.length - 1);
        break;
      case "Escape":
        event.preventDefault();
        event.stopPropagation();
        close(true);
        break;
      case "Tab":
        close(false);
        break;
      default:
        break;
    }
  };

  return (
    <div className="menu">
      <button
        ref={button}
        type="button"
        className="btn btn-icon"
        aria-label={props.label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        data-testid={props.testId}
        onClick={(e) => {
          e.stopPropagation();
          setOpen((o) => !o);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        ⋯
      </button>
      {open && (
        <div ref={list} id={menuId} className="menu-list" role="menu" aria-label={props.label} onKeyDown={onMenuKey}>
          {props.items.map((item) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              className={`menu-item ${item.danger ? "danger" : ""}`}
              onClick={(e) => {
                e.stopPropagation();
                // Focus goes back to the button before the item (and the focus it had) unmounts,
                // so a dialog the item opens finds the button to return focus to.
                button.current?.focus();
                setOpen(false);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
