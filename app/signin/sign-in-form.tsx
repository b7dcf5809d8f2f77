"use client";

import { useState } from "react";

/** Development sign-in: next-auth's csrf + credentials callback (provider id "dev"). */
export function SignInForm({ callbackUrl }: { callbackUrl: string }) {
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { csrfToken } = (await (await fetch("/api/auth/csrf")).json()) as { csrfToken: string };
      const res = await fetch("/api/auth/callback/dev", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, email, callbackUrl, json: "true" }),
      });
      const session = await (await fetch("/api/auth/session")).json();
      if (!res.ok || !session?.user?.id) throw new Error("sign-in refused");
      window.location.assign(callbackUrl);
    } catch {
      setError("Sign-in failed. Development sign-in may be disabled on this server.");
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit}>
      <label htmlFor="email">Email</label>
      <br />
      <input id="email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" />
      <button type="submit" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
      {error ? <p role="alert">{error}</p> : null}
    </form>
  );
}
