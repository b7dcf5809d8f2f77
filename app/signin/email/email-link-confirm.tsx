"use client";

import Link from "next/link";
import { useEffect, useState } from "react";

interface LinkParts {
  email: string;
  token: string;
  callbackUrl: string;
}

/** The link's parts from the URL's fragment, which is then cleared from the address bar and history. */
function readFragment(): LinkParts | null {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const email = params.get("email");
  const token = params.get("token");
  if (window.location.hash) window.history.replaceState(null, "", window.location.pathname);
  if (!email || !token) return null;
  // Only a path of this site (the server checked it when mailing the link; the browser checks again).
  const callback = params.get("callbackUrl") ?? "/dashboard";
  const safe = /^\/(?![/\\])/.test(callback) && new URL(callback, window.location.origin).origin === window.location.origin;
  return { email, token, callbackUrl: safe ? callback : "/dashboard" };
}

/** The button a sign-in link's page shows: spends the link through next-auth's `email-link` provider. */
export function EmailLinkConfirm() {
  const [link, setLink] = useState<LinkParts | null | undefined>(undefined);
  const [state, setState] = useState<"idle" | "busy" | "failed">("idle");
  // eslint-disable-next-line react-hooks/set-state-in-effect -- the fragment exists only in the browser
  useEffect(() => setLink(readFragment()), []);

  async function signIn(parts: LinkParts) {
    setState("busy");
    try {
      const { csrfToken } = (await (await fetch("/api/auth/csrf")).json()) as { csrfToken: string };
      // An operator's link from `npm run admin:sign-in-link` (its token starts "op.") has its own provider.
      const provider = parts.token.startsWith("op.") ? "operator-link" : "email-link";
      await fetch(`/api/auth/callback/${provider}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, email: parts.email, token: parts.token, callbackUrl: parts.callbackUrl, json: "true" }),
      });
      const session = (await (await fetch("/api/auth/session")).json()) as { user?: { id?: string } } | null;
      if (!session?.user?.id) throw new Error("not signed in");
      window.location.assign(parts.callbackUrl);
    } catch {
      setState("failed");
    }
  }

  if (link === undefined) return <p className="mt-4 text-sm text-slate-600">Reading the sign-in link…</p>;
  if (link === null) {
    return (
      <p role="alert" className="mt-4 text-sm text-red-700">
        This sign-in link is incomplete. Ask for a new one on the{" "}
        <Link className="link" href="/signin">
          sign-in page
        </Link>
        .
      </p>
    );
  }
  return (
    <div className="mt-4 space-y-4 text-sm">
      <p>
        Sign in as <span className="font-medium">{link.email}</span>?
      </p>
      {state === "failed" ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-red-800">
          This link has expired or was already used (each works once, for 15 minutes), or the account is locked. Ask for a new one on the{" "}
          <Link className="link" href="/signin">
            sign-in page
          </Link>
          .
        </p>
      ) : (
        <button type="button" className="btn-primary w-full" disabled={state === "busy"} onClick={() => void signIn(link)}>
          {state === "busy" ? "Signing in…" : "Sign in"}
        </button>
      )}
    </div>
  );
}
