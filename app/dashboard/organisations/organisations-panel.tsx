"use client";

import { useState, type FormEvent } from "react";
import { apiJson, countOf, formatDate, formatProviderCost, toApiError, type ApiError } from "@/components/api";
import { DataTable } from "@/components/data-table";
import { ErrorNotice } from "@/components/error-notice";
import { Pending } from "@/components/paged-list";
import { Field } from "@/components/form-field";
import type {
  ActiveAccount,
  OrganisationDetail,
  OrganisationInvites,
  OrganisationMember,
  OrganisationMembers,
  Organisations,
  OrganisationUsage,
} from "@/components/types";
import { Banner, EmptyState, PageHeader, Stat } from "@/components/ui";
import { useApi, type ApiResource } from "@/components/use-api";

const n = (value: number) => value.toLocaleString("en-US");
/** A cap as a stat's hint ("cap 500", "no cap"), and as a figure in the members table ("500", "none"). */
const capText = (cap: number | null) => (cap === null ? "no cap" : `cap ${n(cap)}`);
const capFigure = (cap: number | null) => (cap === null ? "none" : n(cap));

async function switchTo(accountId: string | null) {
  await apiJson("/api/account/active", { method: "PUT", json: { accountId } });
  window.location.reload();
}

/**
 * The organisations a person belongs to, creating one, and, acting as one: its wallet, members and
 * their caps, invitations, and where its credits went.
 */
export function OrganisationsPanel() {
  const list = useApi<Organisations>("/api/orgs");
  const active = useApi<ActiveAccount>("/api/account/active");
  const [error, setError] = useState<ApiError | null>(null);
  const acting = active.data?.account.kind === "organisation" ? active.data.account : null;
  return (
    <>
      <PageHeader
        title="Organisations"
        description="An organisation shares one wallet: its own plan and credits, spent by its members within the caps its admins set. Switch to it (top right) to spend from it, make its API keys and manage its billing."
      />
      {active.error?.code === "forbidden" ? (
        <Banner tone="warning" title="This session acts for an organisation you are no longer a member of">
          <button type="button" className="btn-secondary mt-2" onClick={() => void switchTo(null)}>
            Back to your personal account
          </button>
        </Banner>
      ) : null}
      {error ? <ErrorNotice error={error} /> : null}
      <YourOrganisations list={list} actingId={acting?.id ?? null} onError={setError} onCreated={list.reload} />
      {acting ? <ActingOrganisation id={acting.id} onError={setError} /> : null}
    </>
  );
}

function YourOrganisations({
  list: resource,
  actingId,
  onError,
  onCreated,
}: {
  list: ApiResource<Organisations>;
  actingId: string | null;
  onError: (e: ApiError | null) => void;
  onCreated: () => Promise<void>;
}) {
  const list = resource.data;
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  async function create(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    onError(null);
    try {
      const created = await apiJson<{ organisation: { id: string } }>("/api/orgs", { method: "POST", json: { name: name.trim() } });
      setName("");
      await onCreated();
      await switchTo(created.organisation.id);
    } catch (e) {
      onError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="grid gap-4 lg:grid-cols-3">
      <section className="card lg:col-span-2" aria-labelledby="orgs-title">
        <h2 id="orgs-title">Your organisations</h2>
        {!list ? (
          <Pending resource={resource} />
        ) : list.organisations.length === 0 ? (
          <EmptyState title="None yet">Create one, or accept an invitation from your email.</EmptyState>
        ) : null}
        {list && list.organisations.length ? (
          <DataTable
            inline
            testId="organisations"
            rows={list.organisations}
            rowKey={(o) => o.id}
            columns={[
              { header: "Name", cell: (o) => <span className="font-medium">{o.name}</span> },
              { header: "Role", cell: (o) => o.role, cellClass: () => "capitalize" },
              { header: "Since", cell: (o) => formatDate(o.createdAt) },
              {
                header: "",
                align: "right",
                cell: (o) =>
                  o.id === actingId ? (
                    <span className="text-xs text-emerald-700">acting as it</span>
                  ) : (
                    <button type="button" className="btn-secondary" onClick={() => void switchTo(o.id)}>
                      Act as {o.name}
                    </button>
                  ),
              },
            ]}
          />
        ) : null}
        {actingId ? (
          <button type="button" className="btn-secondary mt-3" onClick={() => void switchTo(null)}>
            Back to your personal account
          </button>
        ) : null}
      </section>
      <section className="card" aria-labelledby="create-org-title">
        <h2 id="create-org-title">Create an organisation</h2>
        <form className="mt-3 space-y-3" onSubmit={create}>
          <Field id="org-name" label="Name">
            <input id="org-name" className="input" value={name} maxLength={80} required onChange={(e) => setName(e.target.value)} />
          </Field>
          <button type="submit" className="btn-primary" disabled={busy || !name.trim()}>
            {busy ? "Creating…" : "Create"}
          </button>
        </form>
      </section>
    </div>
  );
}

function ActingOrganisation({ id, onError }: { id: string; onError: (e: ApiError | null) => void }) {
  const detail = useApi<OrganisationDetail>(`/api/orgs/${id}`);
  const members = useApi<OrganisationMembers>(`/api/orgs/${id}/members`);
  if (!detail.data) return <Pending resource={detail} />;
  const d = detail.data;
  const admin = d.you.role === "owner" || d.you.role === "admin";
  const reload = async () => {
    await Promise.all([detail.reload(), members.reload()]);
  };
  return (
    <>
      <section className="card mt-4" aria-labelledby="wallet-title">
        <h2 id="wallet-title">{d.organisation.name}: wallet</h2>
        <dl className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-4">
          <Stat
            label="Plan"
            value={<span className="capitalize">{d.wallet.tier}</span>}
            hint={`${n(d.wallet.monthlyAllocation)} credits a month`}
          />
          <Stat label="Credits" value={n(d.wallet.subscriptionCredits)} hint={`bonus ${n(d.wallet.bonusCredits)}`} />
          <Stat label="Your spend today" value={n(d.you.spentToday)} hint={capText(d.you.dailyCap)} />
          <Stat label="Your spend this month" value={n(d.you.spentThisMonth)} hint={capText(d.you.monthlyCap)} />
        </dl>
        <p className="mt-3 text-sm text-slate-600">
          {admin ? (
            <>
              Buy a plan or credits for {d.organisation.name} on the{" "}
              <a className="link" href="/dashboard/billing">
                Billing
              </a>{" "}
              page while acting as it. You are its {d.you.role}.
            </>
          ) : (
            <>You are a member: the owner and admins manage billing, caps and members.</>
          )}
        </p>
      </section>
      {members.data ? (
        <Members orgId={id} you={d.you.role} me={d.you.userId} members={members.data.members} onChanged={reload} onError={onError} />
      ) : (
        <Pending resource={members} />
      )}
      {admin ? <Invites orgId={id} onError={onError} /> : null}
      <Usage orgId={id} />
    </>
  );
}

function Members({
  orgId,
  you,
  me,
  members,
  onChanged,
  onError,
}: {
  orgId: string;
  you: string;
  me: string;
  members: OrganisationMember[];
  onChanged: () => Promise<void>;
  onError: (e: ApiError | null) => void;
}) {
  const admin = you === "owner" || you === "admin";
  const [editing, setEditing] = useState<string | null>(null);
  const [daily, setDaily] = useState("");
  const [monthly, setMonthly] = useState("");
  async function run(action: () => Promise<unknown>) {
    onError(null);
    try {
      await action();
      await onChanged();
    } catch (e) {
      onError(toApiError(e));
    }
  }
  const saveCaps = (userId: string) =>
    run(async () => {
      await apiJson(`/api/orgs/${orgId}/members/${userId}`, {
        method: "PATCH",
        json: { dailyCap: daily === "" ? null : Number(daily), monthlyCap: monthly === "" ? null : Number(monthly) },
      });
      setEditing(null);
    });
  return (
    <section className="card mt-4 overflow-x-auto" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <DataTable
        inline
        testId="members"
        rows={members}
        rowKey={(m) => m.userId}
        columns={[
          { header: "Member", cell: (m) => m.email ?? m.name ?? m.userId },
          { header: "Role", cell: (m) => m.role, cellClass: () => "capitalize" },
          {
            header: "Caps (day / month)",
            cell: (m) =>
              editing === m.userId ? (
                <span className="flex flex-wrap items-center gap-1">
                  <input
                    aria-label="Daily cap"
                    className="input w-24 py-1"
                    inputMode="numeric"
                    value={daily}
                    placeholder="none"
                    onChange={(e) => setDaily(e.target.value)}
                  />
                  <input
                    aria-label="Monthly cap"
                    className="input w-24 py-1"
                    inputMode="numeric"
                    value={monthly}
                    placeholder="none"
                    onChange={(e) => setMonthly(e.target.value)}
                  />
                  <button type="button" className="btn-primary" onClick={() => void saveCaps(m.userId)}>
                    Save caps
                  </button>
                </span>
              ) : m.caps ? (
                `${capFigure(m.caps.dailyCap)} / ${capFigure(m.caps.monthlyCap)}`
              ) : (
                "—"
              ),
          },
          { header: "Spent today / month", cell: (m) => (m.caps ? `${n(m.caps.spentToday)} / ${n(m.caps.spentThisMonth)}` : "—") },
          {
            header: "",
            align: "right",
            cell: (m) => (
              <span className="flex flex-wrap justify-end gap-1">
                {admin && editing !== m.userId && (m.role !== "owner" || you === "owner") ? (
                  <button
                    type="button"
                    className="btn-secondary"
                    onClick={() => {
                      setEditing(m.userId);
                      setDaily(m.caps?.dailyCap?.toString() ?? "");
                      setMonthly(m.caps?.monthlyCap?.toString() ?? "");
                    }}
                  >
                    Set caps
                  </button>
                ) : null}
                {admin && m.role !== "owner" ? (
                  <button
                    type="button"
                    className="btn-secondary"
                    onClick={() =>
                      void run(() =>
                        apiJson(`/api/orgs/${orgId}/members/${m.userId}`, {
                          method: "PATCH",
                          json: { role: m.role === "admin" ? "member" : "admin" },
                        }),
                      )
                    }
                  >
                    Make {m.role === "admin" ? "member" : "admin"}
                  </button>
                ) : null}
                {you === "owner" && m.role !== "owner" ? (
                  <button
                    type="button"
                    className="btn-secondary"
                    onClick={() => void run(() => apiJson(`/api/orgs/${orgId}/transfer`, { method: "POST", json: { userId: m.userId } }))}
                  >
                    Make owner
                  </button>
                ) : null}
                {admin && m.role !== "owner" ? (
                  <button
                    type="button"
                    className="btn-danger"
                    onClick={() => void run(() => apiJson(`/api/orgs/${orgId}/members/${m.userId}`, { method: "DELETE" }))}
                  >
                    Remove
                  </button>
                ) : null}
              </span>
            ),
          },
        ]}
      />
      {you !== "owner" ? (
        <button
          type="button"
          className="btn-secondary mt-3"
          onClick={() =>
            void run(async () => {
              await apiJson(`/api/orgs/${orgId}/members/${me}`, { method: "DELETE" });
              await switchTo(null);
            })
          }
        >
          Leave this organisation
        </button>
      ) : null}
    </section>
  );
}

function Invites({ orgId, onError }: { orgId: string; onError: (e: ApiError | null) => void }) {
  const invites = useApi<OrganisationInvites>(`/api/orgs/${orgId}/invites`);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"member" | "admin">("member");
  const [sent, setSent] = useState<string | null>(null);
  async function send(event: FormEvent) {
    event.preventDefault();
    onError(null);
    setSent(null);
    try {
      await apiJson(`/api/orgs/${orgId}/invites`, { method: "POST", json: { email: email.trim(), role } });
      setSent(email.trim());
      setEmail("");
      await invites.reload();
    } catch (e) {
      onError(toApiError(e));
    }
  }
  return (
    <section className="card mt-4 overflow-x-auto" aria-labelledby="invites-title">
      <h2 id="invites-title">Invitations</h2>
      <form className="mt-3 flex flex-wrap items-end gap-2" onSubmit={send}>
        <Field id="invite-email" label="Email">
          <input id="invite-email" type="email" className="input" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field id="invite-role" label="Role">
          <select id="invite-role" className="input" value={role} onChange={(e) => setRole(e.target.value as "member" | "admin")}>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        </Field>
        <button type="submit" className="btn-primary">
          Send invitation
        </button>
      </form>
      {sent ? (
        <p className="mt-2 text-sm text-emerald-700" role="status">
          Invitation sent to {sent}: the link works once, for 7 days.
        </p>
      ) : null}
      {!invites.data ? <Pending resource={invites} /> : null}
      {invites.data?.invites.length ? (
        <DataTable
          inline
          testId="invites"
          rows={invites.data.invites}
          rowKey={(i) => i.id}
          columns={[
            { header: "Email", cell: (i) => i.email },
            { header: "Role", cell: (i) => i.role, cellClass: () => "capitalize" },
            { header: "Status", cell: (i) => i.status },
            { header: "Expires", cell: (i) => formatDate(i.expiresAt, true) },
            {
              header: "",
              align: "right",
              cell: (i) =>
                i.status === "pending" ? (
                  <button
                    type="button"
                    className="btn-secondary"
                    onClick={() =>
                      void apiJson(`/api/orgs/${orgId}/invites/${i.id}`, { method: "DELETE" }).then(
                        () => invites.reload(),
                        (e: unknown) => onError(toApiError(e)),
                      )
                    }
                  >
                    Withdraw
                  </button>
                ) : null,
            },
          ]}
        />
      ) : null}
    </section>
  );
}

function monthStartInput(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

function Usage({ orgId }: { orgId: string }) {
  const [from, setFrom] = useState(monthStartInput());
  const [to, setTo] = useState("");
  const query = new URLSearchParams({ from, ...(to ? { to } : {}) }).toString();
  const usage = useApi<OrganisationUsage>(`/api/orgs/${orgId}/usage?${query}`);
  const u = usage.data;
  return (
    <section className="card mt-4 overflow-x-auto" aria-labelledby="org-usage-title">
      <h2 id="org-usage-title">Spend</h2>
      <div className="mt-3 flex flex-wrap items-end gap-2">
        <Field id="usage-from" label="From">
          <input id="usage-from" type="date" className="input" value={from} onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field id="usage-to" label="To (exclusive)">
          <input id="usage-to" type="date" className="input" value={to} onChange={(e) => setTo(e.target.value)} />
        </Field>
        <a className="btn-secondary" href={`/api/orgs/${orgId}/usage?${query}&format=csv`} download>
          Download CSV
        </a>
      </div>
      {usage.error && u ? <ErrorNotice error={usage.error} /> : null}
      {u ? (
        <>
          <p className="mt-3 text-sm text-slate-600" data-testid="usage-total">
            {u.scope === "member" ? "Your spend" : "Total"}: {n(u.total.credits)} credits in {countOf(u.total.calls, "call")} (
            {formatProviderCost(u.total.costUsd)} paid to AI providers)
          </p>
          <div className="grid gap-4 lg:grid-cols-3">
            <DataTable
              inline
              caption="By member"
              testId="usage-by-member"
              rows={u.byMember}
              rowKey={(m) => m.userId}
              columns={[
                { header: "Member", cell: (m) => m.email ?? m.userId },
                { header: "Credits", align: "right", cell: (m) => n(m.credits) },
                { header: "Calls", align: "right", cell: (m) => n(m.calls) },
              ]}
            />
            <DataTable
              inline
              caption="By key"
              testId="usage-by-key"
              rows={u.byKey}
              rowKey={(k) => k.keyId ?? "session"}
              columns={[
                { header: "Key", cell: (k) => k.name ?? (k.keyId ? k.keyId : "dashboard / session") },
                { header: "Credits", align: "right", cell: (k) => n(k.credits) },
                { header: "Calls", align: "right", cell: (k) => n(k.calls) },
              ]}
            />
            <DataTable
              inline
              caption="By model"
              testId="usage-by-model"
              rows={u.byModel}
              rowKey={(m) => m.model ?? "none"}
              columns={[
                { header: "Model", cell: (m) => m.model ?? "—" },
                { header: "Credits", align: "right", cell: (m) => n(m.credits) },
                { header: "Calls", align: "right", cell: (m) => n(m.calls) },
              ]}
            />
          </div>
        </>
      ) : (
        <Pending resource={usage} />
      )}
    </section>
  );
}
