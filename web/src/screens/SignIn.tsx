// Shown when the server does not know this browser: the cookie is missing, wrong or revoked (any
// 401), or a login link carried a bad token (the server answers GET /login with this page and 401).
// A token pasted here goes through the same GET /login, which sets the HttpOnly cookie.

import { useEffect, useRef, useState } from "react";

export function SignIn({ reason }: { reason: "failed-login" | "unauthenticated"; detail?: string }) {
  const [token, setToken] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const hadToken = useRef(new URLSearchParams(window.location.search).has("token")).current;

  useEffect(() => {
    // Never leave a token in the address bar or the history.
    if (window.location.search) window.history.replaceState(null, "", window.location.pathname);
    input.current?.focus();
  }, []);

  return (
    <main className="page narrow signin" aria-labelledby="signin-title" data-testid="signin">
      <h1 id="signin-title">Sign in to Berth</h1>
      {reason === "failed-login" ? (
        <p className="form-error" role="alert" data-testid="signin-error">
          {hadToken
            ? "That login link's token is not valid: it is not the admin token nor a tenant token (never issued, or revoked)."
            : "The login link has no token."}
        </p>
      ) : (
        <p className="banner banner-warn" role="alert" data-testid="signin-error">
          This browser is not signed in, or its token is no longer valid.
        </p>
      )}
      <p>
        Open the login URL that <code>berth server</code> printed when it started (
        <code>http://…/login?token=…</code>), or paste a token below. The admin token is in{" "}
        <code>&lt;data-dir&gt;/admin.token</code>; tenants get theirs from <code>POST /api/v1/admin/tokens</code>.
      </p>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) window.location.assign(`/login?token=${encodeURIComponent(token.trim())}`);
        }}
      >
        <label className="field">
          <span>Token</span>
          <input
            ref={input}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={token}
            onChange={(e) => setToken(e.target.value)}
            data-testid="token-input"
          />
        </label>
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={!token.trim()}>
            Sign in
          </button>
        </div>
      </form>
    </main>
  );
}
