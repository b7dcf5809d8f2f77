"use client";

import { useState, type FormEvent } from "react";
import { AuditLog } from "@/components/audit-log";
import { apiJson, countOf, formatDate, formatProviderCost, toApiError, type ApiError } from "@/components/api";
import { DataTable, type Column } from "@/components/data-table";
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
import { ActionButton, Banner, Card, EmptyState, PageHeader, Stat } from "@/components/ui";
import { useApi, type ApiResource } from "@/components/use-api";

const n = (value: number) => value.toLocaleString("en-US");
/** A cap as a stat's hint ("cap 500", "no cap"), and as a figure in the members table ("500", "none"). */
const capText = (cap: number | null) => (cap === null ? "no cap" : `cap ${n(cap)}`);
const capFigure = (cap: number | null) => (cap === null ? "none" : n(cap));
const budgetText = (budget: number | null) => (budget === null ? "no team budget" : `team budget ${n(budget)}`);

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
      <Card id="orgs" title="Your organisations" className="lg:col-span-2">
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
      </Card>
      <Card id="create-org" title="Create an organisation">
        <form className="mt-3 space-y-3" onSubmit={create}>
          <Field id="org-name" label="Name">
            <input id="org-name" className="input" value={name} maxLength={80} required onChange={(e) => setName(e.target.value)} />
          </Field>
          <button type="submit" className="btn-primary" disabled={busy || !name.trim()}>
            {busy ? "Creating…" : "Create"}
          </button>
        </form>
      </Card>
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
          <Stat label="Team spend today" value={n(d.wallet.spentToday)} hint={budgetText(d.organisation.dailyBudget)} />
          <Stat label="Team spend this month" value={n(d.wallet.spentThisMonth)} hint={budgetText(d.organisation.monthlyBudget)} />
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
      {admin ? <Limits key={d.organisation.id} org={d.organisation} onSaved={reload} onError={onError} /> : null}
      {admin ? <Invites orgId={id} onError={onError} /> : null}
      <Usage orgId={id} />
      {admin ? <AuditLog base={`/api/orgs/${id}/audit`} /> : null}
      {d.you.role === "owner" ? (
        <DeleteOrganisation orgId={id} name={d.organisation.name} slug={d.organisation.slug} onError={onError} />
      ) : null}
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
  const startEditing = (m: OrganisationMember) => {
    setEditing(m.userId);
    setDaily(m.caps?.dailyCap?.toString() ?? "");
    setMonthly(m.caps?.monthlyCap?.toString() ?? "");
  };
  const memberPath = (userId: string) => `/api/orgs/${orgId}/members/${userId}`;
  const setRole = (userId: string, role: "member" | "admin") => run(() => apiJson(memberPath(userId), { method: "PATCH", json: { role } }));
  const transferTo = (userId: string) => run(() => apiJson(`/api/orgs/${orgId}/transfer`, { method: "POST", json: { userId } }));
  const remove = (userId: string) => run(() => apiJson(memberPath(userId), { method: "DELETE" }));
  const leave = () =>
    run(async () => {
      await apiJson(memberPath(me), { method: "DELETE" });
      await switchTo(null);
    });
  const saveCaps = (userId: string) =>
    run(async () => {
      await apiJson(`/api/orgs/${orgId}/members/${userId}`, {
        method: "PATCH",
        json: { dailyCap: daily === "" ? null : Number(daily), monthlyCap: monthly === "" ? null : Number(monthly) },
      });
      setEditing(null);
    });
  return (
    <Card id="members" title="Members" className="mt-4 overflow-x-auto">
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
                  {(
                    [
                      ["Daily cap", daily, setDaily],
                      ["Monthly cap", monthly, setMonthly],
                    ] as const
                  ).map(([label, value, set]) => (
                    <input
                      key={label}
                      aria-label={label}
                      className="input w-24 py-1"
                      inputMode="numeric"
                      value={value}
                      placeholder="none"
                      onChange={(e) => set(e.target.value)}
                    />
                  ))}
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
                  <ActionButton onClick={() => startEditing(m)}>Set caps</ActionButton>
                ) : null}
                {admin && m.role !== "owner" ? (
                  <ActionButton onClick={() => void setRole(m.userId, m.role === "admin" ? "member" : "admin")}>
                    Make {m.role === "admin" ? "member" : "admin"}
                  </ActionButton>
                ) : null}
                {you === "owner" && m.role !== "owner" ? (
                  <ActionButton onClick={() => void transferTo(m.userId)}>Make owner</ActionButton>
                ) : null}
                {admin && m.role !== "owner" ? (
                  <ActionButton danger onClick={() => void remove(m.userId)}>
                    Remove
                  </ActionButton>
                ) : null}
              </span>
            ),
          },
        ]}
      />
      {you !== "owner" ? (
        <ActionButton className="mt-3" onClick={() => void leave()}>
          Leave this organisation
        </ActionButton>
      ) : null}
    </Card>
  );
}

/** The owner and admins set the team's budgets (per UTC day and calendar month) and the models its members may use. */
function Limits({
  org,
  onSaved,
  onError,
}: {
  org: OrganisationDetail["organisation"];
  onSaved: () => Promise<void>;
  onError: (e: ApiError | null) => void;
}) {
  const [daily, setDaily] = useState(org.dailyBudget?.toString() ?? "");
  const [monthly, setMonthly] = useState(org.monthlyBudget?.toString() ?? "");
  const [models, setModels] = useState(org.allowedModels.join(", "));
  const [saved, setSaved] = useState(false);
  async function save(event: FormEvent) {
    event.preventDefault();
    onError(null);
    setSaved(false);
    try {
      await apiJson(`/api/orgs/${org.id}`, {
        method: "PATCH",
        json: {
          dailyBudget: daily === "" ? null : Number(daily),
          monthlyBudget: monthly === "" ? null : Number(monthly),
          allowedModels: models
            .split(",")
            .map((m) => m.trim())
            .filter(Boolean),
        },
      });
      setSaved(true);
      await onSaved();
    } catch (e) {
      onError(toApiError(e));
    }
  }
  return (
    <Card id="limits" title="Team budgets and models" className="mt-4">
      <p className="mt-1 text-sm text-slate-600">
        Budgets hold for the whole team besides the balance (empty: none); models narrow what every member and key may use (empty: all).
      </p>
      <form className="mt-3 flex flex-wrap items-end gap-2" onSubmit={save}>
        <Field id="budget-daily" label="Daily budget (credits)">
          <input id="budget-daily" type="number" min={0} className="input" value={daily} onChange={(e) => setDaily(e.target.value)} />
        </Field>
        <Field id="budget-monthly" label="Monthly budget (credits)">
          <input id="budget-monthly" type="number" min={0} className="input" value={monthly} onChange={(e) => setMonthly(e.target.value)} />
        </Field>
        <Field id="allowed-models" label="Allowed models (comma-separated)">
          <input
            id="allowed-models"
            className="input"
            value={models}
            onChange={(e) => setModels(e.target.value)}
            placeholder="all models"
          />
        </Field>
        <button type="submit" className="btn-primary">
          Save limits
        </button>
      </form>
      {saved ? (
        <p className="mt-2 text-sm text-emerald-700" role="status">
          Saved.
        </p>
      ) : null}
    </Card>
  );
}

/** The owner deletes the organisation, typing its slug: its ledger is kept, closed; everyone is detached. */
function DeleteOrganisation({
  orgId,
  name,
  slug,
  onError,
}: {
  orgId: string;
  name: string;
  slug: string;
  onError: (e: ApiError | null) => void;
}) {
  const [confirm, setConfirm] = useState("");
  async function submit(event: FormEvent) {
    event.preventDefault();
    onError(null);
    try {
      await apiJson(`/api/orgs/${orgId}`, { method: "DELETE", json: { confirm } });
      await switchTo(null);
    } catch (e) {
      onError(toApiError(e));
    }
  }
  return (
    <Card id="delete-organisation" title="Delete this organisation" className="mt-4">
      <p className="mt-1 text-sm text-slate-600">
        Cancels its subscription, revokes every key, voids waiting invitations and detaches every member. Its ledger is kept for the books;
        its remaining credits are not refunded.
      </p>
      <form className="mt-3 flex flex-wrap items-end gap-2" onSubmit={submit}>
        <Field id="delete-confirm" label={`Type ${slug} to delete ${name}`}>
          <input id="delete-confirm" className="input" autoComplete="off" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        </Field>
        <button type="submit" className="btn-danger" disabled={confirm !== slug}>
          Delete organisation
        </button>
      </form>
    </Card>
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
  const inviteColumns: Column<OrganisationInvites["invites"][number]>[] = [
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
  ];
  return (
    <Card id="invites" title="Invitations" className="mt-4 overflow-x-auto">
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
        <DataTable inline testId="invites" rows={invites.data.invites} rowKey={(i) => i.id} columns={inviteColumns} />
      ) : null}
    </Card>
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
    <Card id="org-usage" title="Spend" className="mt-4 overflow-x-auto">
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
            <Breakdown
              caption="By member"
              header="Member"
              rows={u.byMember}
              rowKey={(m) => m.userId}
              label={(m) => m.email ?? (m.userId || "service keys")}
            />
            <Breakdown
              caption="By key"
              header="Key"
              rows={u.byKey}
              rowKey={(k) => k.keyId ?? "session"}
              label={(k) => k.name ?? k.keyId ?? "dashboard / session"}
            />
            <Breakdown caption="By model" header="Model" rows={u.byModel} rowKey={(m) => m.model ?? "none"} label={(m) => m.model ?? "—"} />
          </div>
        </>
      ) : (
        <Pending resource={usage} />
      )}
    </Card>
  );
}

/** One way of splitting the spend: a row per member, key or model, with its credits and calls. */
function Breakdown<T extends { credits: number; calls: number }>(props: {
  caption: string;
  header: string;
  rows: T[];
  rowKey: (row: T) => string;
  label: (row: T) => string;
}) {
  return (
    <DataTable
      inline
      caption={props.caption}
      testId={`usage-by-${props.header.toLowerCase()}`}
      rows={props.rows}
      rowKey={props.rowKey}
      columns={[
        { header: props.header, cell: props.label },
        { header: "Credits", align: "right", cell: (r) => n(r.credits) },
        { header: "Calls", align: "right", cell: (r) => n(r.calls) },
      ]}
    />
  );
}
