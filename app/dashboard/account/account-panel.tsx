"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { apiJson, toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { PageHeader, Spinner } from "@/components/ui";

/** The account's sessions: who is signed in, and ending every session at once. */
export function AccountPanel() {
  const router = useRouter();
  const [email, setEmail] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    fetch("/api/auth/session")
      .then((r) => r.json())
      .then((s: { user?: { email?: string } } | null) => setEmail(s?.user?.email ?? null))
      .catch(() => setEmail(null));
  }, []);

  async function signOutEverywhere() {
    setBusy(true);
    setError(null);
    try {
      await apiJson("/api/user/sign-out-everywhere", { method: "POST" });
      router.replace("/signin");
      router.refresh();
    } catch (e) {
      setError(toApiError(e));
      setBusy(false);
    }
  }

  return (
    <div className="space-y-6">
      <PageHeader title="Account" description={email ? `Signed in as ${email}.` : undefined} />
      <section className="card space-y-3" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading" className="text-lg font-semibold">
          Sessions
        </h2>
        <p className="text-sm text-slate-600">
          Signing out ends this session on the server, not only in this browser. To end every session of this account at once (another
          computer, a phone, a browser you no longer have), sign out everywhere: each of them is refused from its next request, and you sign
          in again here. API keys are not affected; revoke those on the API keys page.
        </p>
        {error ? <ErrorNotice error={error} /> : null}
        {confirming ? (
          <div className="flex flex-wrap items-center gap-3">
            <span className="text-sm font-medium">End every session, this one included?</span>
            <button type="button" className="btn-danger" onClick={signOutEverywhere} disabled={busy}>
              {busy ? <Spinner label="Signing out" /> : "Confirm: sign out everywhere"}
            </button>
            <button type="button" className="btn-secondary" onClick={() => setConfirming(false)} disabled={busy}>
              Cancel
            </button>
          </div>
        ) : (
          <button type="button" className="btn-secondary" onClick={() => setConfirming(true)}>
            Sign out everywhere
          </button>
        )}
      </section>
    </div>
  );
}
