"use client";

import { useEffect, useState } from "react";
import { TextField } from "@/components/form-field";

interface Provider {
  id: string;
  name: string;
  type: string;
}

async function csrfToken(): Promise<string> {
  const res = await fetch("/api/auth/csrf", { credentials: "same-origin" });
  return ((await res.json()) as { csrfToken: string }).csrfToken;
}

/**
 * Lists the sign-in methods next-auth is configured with (GET /api/auth/providers): the development
 * email sign-in (credentials provider "dev") and any OAuth/OIDC providers (GitHub, Google, OIDC).
 */
export function SignInForm({ callbackUrl, localMailbox }: { callbackUrl: string; localMailbox: boolean }) {
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const [loadError, setLoadError] = useState(false);
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [linkEmail, setLinkEmail] = useState("");
  const [linkSent, setLinkSent] = useState<string | null>(null);

  useEffect(() => {
    fetch("/api/auth/providers")
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(String(res.status)))))
      // An operator's one-time link (npm run admin:sign-in-link) is spent on its own page, never offered here.
      .then((all: Record<string, Provider> | null) => setProviders(Object.values(all ?? {}).filter((p) => p.id !== "operator-link")))
      .catch(() => setLoadError(true));
  }, []);

  async function devSignIn(event: React.FormEvent) {
    event.preventDefault();
    setBusy("dev");
    setError(null);
    try {
      const res = await post(
        "/api/auth/callback/dev",
        new URLSearchParams({ csrfToken: await csrfToken(), email: email.trim(), callbackUrl, json: "true" }),
      );
      const session = (await (await fetch("/api/auth/session")).json()) as { user?: { id?: string } } | null;
      if (!res.ok || !session?.user?.id) throw new Error("sign-in refused");
      window.location.assign(callbackUrl);
    } catch {
      setError("Sign-in failed. Check the email address; the account may be locked.");
      setBusy(null);
    }
  }

  async function sendLink(event: React.FormEvent) {
    event.preventDefault();
    setBusy("email-link");
    setError(null);
    try {
      const res = await post("/api/auth/email-link", { email: linkEmail.trim(), callbackUrl });
      const body = (await res.json()) as { message?: string; error?: string };
      if (!res.ok) throw new Error(body.error ?? "The link could not be sent");
      setLinkSent(body.message ?? "A sign-in link is on its way.");
    } catch (e) {
      setError(e instanceof Error ? e.message : "The link could not be sent. Try again.");
    } finally {
      setBusy(null);
    }
  }

  async function oauthSignIn(provider: Provider) {
    setBusy(provider.id);
    setError(null);
    try {
      // next-auth v4: POST /api/auth/signin/<id> with the CSRF token redirects to the provider.
      const form = document.createElement("form");
      form.method = "post";
      form.action = `/api/auth/signin/${encodeURIComponent(provider.id)}`;
      for (const [name, value] of Object.entries({ csrfToken: await csrfToken(), callbackUrl })) {
        const input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        input.value = value;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
    } catch {
      setError(`Could not start sign-in with ${provider.name}. Try again.`);
      setBusy(null);
    }
  }

  if (loadError) {
    return (
      <p role="alert" className="mt-4 text-sm text-red-700">
        The sign-in methods could not be loaded. Reload the page to try again.
      </p>
    );
  }
  if (!providers) {
    return (
      <p className="mt-4 text-sm text-slate-500" role="status">
        Loading sign-in methods…
      </p>
    );
  }
  const dev = providers.find((p) => p.id === "dev");
  const emailLink = providers.find((p) => p.id === "email-link");
  const oauth = providers.filter((p) => p.type !== "credentials");

  return (
    <div className="mt-5 space-y-5">
      {providers.length === 0 ? (
        <p className="text-sm text-slate-600">Signing in is not available on this server yet. Please contact its operator.</p>
      ) : null}
      {oauth.length > 0 ? (
        <div className="space-y-2">
          {oauth.map((p) => (
            <button key={p.id} type="button" className="btn-secondary w-full" disabled={busy !== null} onClick={() => oauthSignIn(p)}>
              {busy === p.id ? `Redirecting to ${p.name}…` : `Continue with ${p.name}`}
            </button>
          ))}
        </div>
      ) : null}
      {emailLink ? (
        linkSent ? (
          <div
            role="status"
            className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-800"
            data-testid="link-sent"
          >
            {linkSent}
            {localMailbox ? (
              <>
                {" "}
                (Development: it is in the{" "}
                <a className="link" href="/dev/mailbox">
                  local mailbox
                </a>
                .)
              </>
            ) : null}
          </div>
        ) : (
          <form onSubmit={sendLink} className="space-y-3">
            <EmailField id="link-email" label="Your email address" value={linkEmail} onChange={setLinkEmail} />
            <button type="submit" className="btn-primary w-full" disabled={busy !== null}>
              {busy === "email-link" ? "Sending…" : "Email me a sign-in link"}
            </button>
          </form>
        )
      ) : null}
      {(dev || emailLink) && oauth.length > 0 ? (
        <div className="flex items-center gap-3 text-xs uppercase text-slate-400">
          <span className="h-px flex-1 bg-slate-200" /> or <span className="h-px flex-1 bg-slate-200" />
        </div>
      ) : null}
      {dev ? (
        <form
          onSubmit={devSignIn}
          className="space-y-3 rounded-md border border-dashed border-amber-400 bg-amber-50 p-3"
          aria-labelledby="dev-heading"
          aria-describedby="dev-hint"
        >
          <p id="dev-heading" className="text-sm font-semibold text-amber-900">
            Development sign-in (no check)
          </p>
          <EmailField id="email" label="Any email address (not checked)" value={email} onChange={setEmail} />
          <button type="submit" className="btn-secondary w-full" disabled={busy !== null}>
            {busy === "dev" ? "Signing in…" : "Sign in at once, without a link"}
          </button>
          <p id="dev-hint" className="text-xs text-amber-900">
            No link, no password: you are signed in as whatever address you type (the account is created with the free plan). Never on in
            production.
          </p>
        </form>
      ) : null}
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A POST of a form (URLSearchParams) or of JSON. */
function post(url: string, body: URLSearchParams | Record<string, string>): Promise<Response> {
  const form = body instanceof URLSearchParams;
  return fetch(url, {
    method: "POST",
    headers: { "content-type": form ? "application/x-www-form-urlencoded" : "application/json" },
    body: form ? body : JSON.stringify(body),
  });
}

function EmailField({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (value: string) => void }) {
  return (
    <TextField
      id={id}
      label={label}
      name="email"
      type="email"
      required
      value={value}
      onChange={onChange}
      autoComplete="email"
      placeholder="you@example.com"
    />
  );
}
