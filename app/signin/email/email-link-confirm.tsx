"use client";

import Link from "next/link";
import { useState } from "react";

/** The button a sign-in link's page shows: spends the link through next-auth's `email-link` provider. */
export function EmailLinkConfirm({ email, token, callbackUrl }: { email: string; token: string; callbackUrl: string }) {
  const [state, setState] = useState<"idle" | "busy" | "failed">("idle");

  async function signIn() {
    setState("busy");
    try {
      const { csrfToken } = (await (await fetch("/api/auth/csrf")).json()) as { csrfToken: string };
      await fetch("/api/auth/callback/email-link", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, email, token, callbackUrl, json: "true" }),
      });
      const session = (await (await fetch("/api/auth/session")).json()) as { user?: { id?: string } } | null;
      if (!session?.user?.id) throw new Error("not signed in");
      window.location.assign(callbackUrl);
    } catch {
      setState("failed");
    }
  }

  return (
    <div className="mt-4 space-y-4 text-sm">
      <p>
        Sign in as <span className="font-medium">{email}</span>?
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
        <button type="button" className="btn-primary w-full" disabled={state === "busy"} onClick={() => void signIn()}>
          {state === "busy" ? "Signing in…" : "Sign in"}
        </button>
      )}
    </div>
  );
}
