"use client";

import { useEffect, useState } from "react";
import { apiJson, toApiError } from "./api";

interface Account {
  id: string;
  kind: "person" | "organisation";
  name: string | null;
  role: string;
}
interface Org {
  id: string;
  name: string;
  role: string;
}

/**
 * Which wallet this session acts for: the person's own, or an organisation they belong to. Switching
 * sets the session's active account (PUT /api/account/active) and reloads the page, so every panel
 * reads the chosen account's credits, keys and billing. A session acting for an organisation it was
 * removed from is told so, and offered its own account.
 */
export function AccountSwitcher() {
  const [orgs, setOrgs] = useState<Org[]>([]);
  const [active, setActive] = useState<Account | null>(null);
  const [stale, setStale] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    // The switcher is a convenience: when either read fails (the network, a server error) the header
    // simply shows no switcher. Only a 403 means the session acts for an organisation it left.
    apiJson<{ organisations: Org[] }>("/api/orgs")
      .then((r) => setOrgs(r.organisations))
      .catch(() => setOrgs([]));
    apiJson<{ account: Account }>("/api/account/active")
      .then((r) => setActive(r.account))
      .catch((error: unknown) => setStale(toApiError(error).code === "forbidden"));
  }, []);

  async function choose(accountId: string) {
    setBusy(true);
    try {
      await apiJson("/api/account/active", { method: "PUT", json: { accountId: accountId === "personal" ? null : accountId } });
      window.location.reload();
    } finally {
      setBusy(false);
    }
  }

  if (orgs.length === 0 && !stale && active?.kind !== "organisation") return null;
  const value = stale ? "" : active?.kind === "organisation" ? active.id : "personal";
  return (
    <label className="flex min-w-0 items-center gap-2 text-sm text-slate-600">
      <span className="whitespace-nowrap">Acting as</span>
      <select
        className="input max-w-[16rem] truncate py-1"
        aria-label="Account"
        data-testid="account-switcher"
        value={value}
        disabled={busy}
        onChange={(e) => void choose(e.target.value)}
      >
        {stale ? <option value="">an organisation you left</option> : null}
        <option value="personal">Personal account</option>
        {orgs.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
    </label>
  );
}
