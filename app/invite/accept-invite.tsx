"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { apiJson, toApiError } from "@/components/api";

interface Invitation {
  token: string;
  organisation: string;
}

const KEY = "pending-invitation";

/** The invitation of this tab: from the link's fragment (then cleared from the address bar), else kept from before a sign-in. */
function readInvitation(): Invitation | null {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const token = params.get("token");
  if (window.location.hash) window.history.replaceState(null, "", window.location.pathname);
  if (token) {
    const found = { token, organisation: params.get("organisation") ?? "an organisation" };
    sessionStorage.setItem(KEY, JSON.stringify(found));
    return found;
  }
  try {
    return JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Invitation | null;
  } catch {
    return null;
  }
}

export function AcceptInvite() {
  const router = useRouter();
  const [invitation, setInvitation] = useState<Invitation | null | undefined>(undefined);
  const [email, setEmail] = useState<string | null | undefined>(undefined);
  const [state, setState] = useState<{ kind: "idle" | "busy" } | { kind: "failed"; message: string }>({ kind: "idle" });

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the fragment exists only in the browser
    setInvitation(readInvitation());
    fetch("/api/auth/session")
      .then((r) => r.json())
      .then((s: { user?: { email?: string } } | null) => setEmail(s?.user?.email ?? null))
      .catch(() => setEmail(null));
  }, []);

  async function accept(inv: Invitation) {
    setState({ kind: "busy" });
    try {
      const joined = await apiJson<{ organisation: { id: string } }>("/api/invites/accept", { method: "POST", json: { token: inv.token } });
      sessionStorage.removeItem(KEY);
      await apiJson("/api/account/active", { method: "PUT", json: { accountId: joined.organisation.id } });
      router.push("/dashboard/organisations");
    } catch (error) {
      setState({ kind: "failed", message: toApiError(error).message });
    }
  }

  if (invitation === undefined || email === undefined) return <p className="mt-4 text-sm text-slate-600">Reading the invitation…</p>;
  if (invitation === null) {
    return (
      <p role="alert" className="mt-4 text-sm text-red-700">
        This invitation link is incomplete. Open the link from the email again, or ask for a new invitation.
      </p>
    );
  }
  if (!email) {
    return (
      <div className="mt-4 space-y-4 text-sm">
        <p>
          You are invited to join <span className="font-medium">{invitation.organisation}</span>. Sign in with the address the invitation
          was sent to, then accept it here.
        </p>
        <Link className="btn-primary block w-full text-center" href="/signin?callbackUrl=%2Finvite">
          Sign in to accept
        </Link>
      </div>
    );
  }
  return (
    <div className="mt-4 space-y-4 text-sm">
      <p>
        Join <span className="font-medium">{invitation.organisation}</span> as <span className="font-medium">{email}</span>?
      </p>
      {state.kind === "failed" ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-red-800">
          {state.message}
        </p>
      ) : null}
      <button type="button" className="btn-primary w-full" disabled={state.kind === "busy"} onClick={() => void accept(invitation)}>
        {state.kind === "busy" ? "Joining…" : "Accept the invitation"}
      </button>
    </div>
  );
}
