// A small history router for the five client routes; the server answers index.html for each of
// them, so a reload or a pasted URL lands on the same screen.

import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";

export type Route =
  | { screen: "console" }
  | { screen: "new" }
  | { screen: "session"; id: string }
  | { screen: "agent"; id: string }
  | { screen: "restore"; id: string }
  | { screen: "login" }
  | { screen: "missing"; path: string };

export function parse(path: string): Route {
  if (path === "/" || path === "") return { screen: "console" };
  if (path === "/new") return { screen: "new" };
  if (path === "/login") return { screen: "login" };
  const match = /^\/(session|agent|restore)\/([^/]+)\/?$/.exec(path);
  if (match) {
    let id: string;
    try {
      id = decodeURIComponent(match[2]);
    } catch {
      return { screen: "missing", path }; // a malformed escape (/session/%E0) names no session
    }
    return { screen: match[1] as "session" | "agent" | "restore", id };
  }
  return { screen: "missing", path };
}

interface Navigation {
  route: Route;
  navigate(path: string, options?: { replace?: boolean }): void;
}

const RouterContext = createContext<Navigation | null>(null);

export function Router({ children }: { children: ReactNode }) {
  const [path, setPath] = useState(() => window.location.pathname);
  useEffect(() => {
    const onPop = () => setPath(window.location.pathname);
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  const navigate = useCallback((to: string, options?: { replace?: boolean }) => {
    if (options?.replace) window.history.replaceState(null, "", to);
    else window.history.pushState(null, "", to);
    setPath(window.location.pathname);
    window.scrollTo(0, 0);
  }, []);
  return (
    <RouterContext.Provider value={{ route: parse(path), navigate }}>{children}</RouterContext.Provider>
  );
}

export function useRouter(): Navigation {
  const value = useContext(RouterContext);
  if (!value) throw new Error("useRouter outside <Router>");
  return value;
}

/** A same-origin link that navigates without a reload (and still opens in a new tab on Ctrl+click). */
export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  title?: string;
  "aria-label"?: string;
  "data-testid"?: string;
}) {
  const { navigate } = useRouter();
  return (
    <a
      href={props.to}
      className={props.className}
      title={props.title}
      aria-label={props["aria-label"]}
      data-testid={props["data-testid"]}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}

/** Where a session's live screen is: Restore for a snapshot, the agent or shell workspace else. */
export function sessionPath(session: { id: string; state: string; workloadType: string }): string {
  const id = encodeURIComponent(session.id);
  if (session.state === "snapshot") return `/restore/${id}`;
  if (session.workloadType !== "shell") return `/agent/${id}`;
  return `/session/${id}`;
}
