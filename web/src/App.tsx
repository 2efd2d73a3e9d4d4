import { lazy, Suspense, useEffect, useState } from "react";
import { onUnauthenticated } from "./api/client";
import { RecoveryBanner } from "./components/RecoveryBanner";
import { ToastProvider } from "./components/Toasts";
import { Link, Router, useRouter } from "./lib/router";
import { AgentWorkspace } from "./screens/AgentWorkspace";
import { Console } from "./screens/Console";
import { NewSession } from "./screens/NewSession";
import { Restore } from "./screens/Restore";
import { SignIn } from "./screens/SignIn";

// The terminal (xterm.js) is most of the code; the console loads without it.
const ShellWorkspace = lazy(() => import("./screens/ShellWorkspace").then((m) => ({ default: m.ShellWorkspace })));

/** Clears the HttpOnly cookie (only the server can), then starts over at the sign-in screen. */
async function signOut() {
  await fetch("/logout", { method: "POST", credentials: "same-origin" });
  window.location.assign("/");
}

export function App() {
  return (
    <ToastProvider>
      <Router>
        <Shell />
      </Router>
    </ToastProvider>
  );
}

function Shell() {
  const { route } = useRouter();
  const [unauthenticated, setUnauthenticated] = useState(false);
  useEffect(() => onUnauthenticated(() => setUnauthenticated(true)), []);

  useEffect(() => {
    const titles: Record<string, string> = {
      console: "Sessions",
      new: "New session",
      session: "Shell",
      agent: "Agent",
      restore: "Restore",
      login: "Sign in",
      missing: "Not found",
    };
    document.title = `${titles[route.screen]} · Berth`;
  }, [route.screen]);

  let screen: React.ReactNode;
  if (route.screen === "login") screen = <SignIn reason="failed-login" />;
  else if (unauthenticated) screen = <SignIn reason="unauthenticated" />;
  else {
    switch (route.screen) {
      case "console":
        screen = <Console />;
        break;
      case "new":
        screen = (
          <>
            <Console />
            <NewSession />
          </>
        );
        break;
      case "session":
        screen = <ShellWorkspace key={route.id} id={route.id} />;
        break;
      case "agent":
        screen = <AgentWorkspace key={route.id} id={route.id} />;
        break;
      case "restore":
        screen = <Restore key={route.id} id={route.id} />;
        break;
      case "missing":
        screen = (
          <main className="page">
            <div className="placeholder">
              <h1>Nothing here</h1>
              <p>There is no page at {route.path}.</p>
              <Link to="/" className="btn">
                Back to sessions
              </Link>
            </div>
          </main>
        );
        break;
    }
  }

  return (
    <div className="app">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <nav className="rail" aria-label="Main">
        <Link to="/" className="logo" aria-label="Berth — sessions">
          <span aria-hidden="true">⚓</span>
          <span className="logo-text">Berth</span>
        </Link>
        <Link to="/" className="rail-link">
          Sessions
        </Link>
        <Link to="/new" className="rail-link">
          New session
        </Link>
        <button type="button" className="rail-link rail-signout" onClick={signOut}>
          Sign out
        </button>
      </nav>
      <div id="content" className="content">
        {!unauthenticated && route.screen !== "login" && <RecoveryBanner />}
        <Suspense
          fallback={
            <main className="page">
              <p className="placeholder" aria-busy="true">
                Loading…
              </p>
            </main>
          }
        >
          {screen}
        </Suspense>
      </div>
    </div>
  );
}
