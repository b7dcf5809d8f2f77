"use client";

import { AuditLog } from "@/components/audit-log";
import Link from "next/link";
import { useState } from "react";
import { ConfirmForm } from "@/components/admin/confirm-form";
import type { AdminAdjustment, AdminLock, AdminRevokeKey, AdminUnlink, AdminUser } from "@/components/admin-types";
import { apiJson, formatDate } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { Banner, Card, EmptyState, PageHeader, Spinner, Stat } from "@/components/ui";
import { useApi } from "@/components/use-api";
import { Field, SelectField } from "@/components/form-field";
import { DataTable, type Column } from "@/components/data-table";

const n = (v: number) => v.toLocaleString("en-US");

/** One user as an operator sees them, with the credit adjustment and lock forms. */
const BONUS_COLUMNS: Column<AdminUser["credits"]["bonus"][number]>[] = [
  { header: "Order", cell: (p) => p.orderId },
  { header: "Credits", align: "right", cell: (p) => n(p.credits) },
  { header: "Remaining", align: "right", cell: (p) => n(p.remaining) },
  { header: "Expires", cell: (p) => (p.expiredAt ? `expired ${formatDate(p.expiredAt)}` : formatDate(p.expiresAt)) },
];

const PAYMENT_COLUMNS: Column<AdminUser["payments"][number]>[] = [
  { header: "Paid", cell: (p) => formatDate(p.paidAt) },
  { header: "Item", cell: (p) => p.description },
  { header: "Amount", align: "right", cell: (p) => `${p.currency} ${(p.amount / 100).toFixed(2)}` },
  {
    header: "Status",
    cell: (p) => (p.refundedAmount > 0 ? `${p.status} (${p.currency} ${(p.refundedAmount / 100).toFixed(2)})` : p.status),
  },
  { header: "Credits", align: "right", cell: (p) => (p.creditsTakenBack ? `${n(p.credits)} (−${n(p.creditsTakenBack)})` : n(p.credits)) },
  { header: "Provider id", cell: (p) => `${p.provider}: ${p.providerPaymentId}` },
  {
    header: "Receipt",
    cell: (p) =>
      p.receiptUrl ? (
        <a className="link" href={p.receiptUrl} target="_blank" rel="noreferrer">
          open
        </a>
      ) : (
        ""
      ),
  },
];

const MEMBER_COLUMNS: Column<NonNullable<AdminUser["organisation"]>["members"][number]>[] = [
  {
    header: "Member",
    cell: (m) => (
      <Link className="link" href={`/admin/users/${m.userId}`}>
        {m.email ?? m.userId}
      </Link>
    ),
  },
  { header: "Role", cell: (m) => m.role, cellClass: () => "capitalize" },
  { header: "Daily cap", align: "right", cell: (m) => (m.dailyCap === null ? "—" : n(m.dailyCap)) },
  { header: "Monthly cap", align: "right", cell: (m) => (m.monthlyCap === null ? "—" : n(m.monthlyCap)) },
  { header: "Spent today", align: "right", cell: (m) => n(m.spentToday) },
  { header: "Spent this month", align: "right", cell: (m) => n(m.spentThisMonth) },
];

const LEDGER_COLUMNS: Column<AdminUser["ledger"][number]>[] = [
  { header: "When", cell: (row) => formatDate(row.createdAt, true) },
  { header: "Type", cell: (row) => row.type },
  { header: "Operation", cell: (row) => row.operation },
  {
    header: "Amount",
    align: "right",
    cellClass: (row) => (row.amount < 0 ? "text-red-700" : "text-emerald-700"),
    cell: (row) => (row.amount > 0 ? `+${n(row.amount)}` : n(row.amount)),
  },
  { header: "Balance after", align: "right", cell: (row) => n(row.balanceAfter) },
  {
    header: "Note",
    cellClass: () => "text-slate-600",
    cell: (row) =>
      typeof row.metadata?.reason === "string"
        ? `${row.metadata.reason} (${String(row.metadata.operator ?? "")})`
        : typeof row.metadata?.model === "string"
          ? row.metadata.model
          : "",
  },
];

export function UserDetail({ id }: { id: string }) {
  const resource = useApi<AdminUser>(`/api/admin/users/${encodeURIComponent(id)}`);
  const { data, error, loading, reload } = resource;
  if (error && !data) return <ErrorNotice error={error} />;
  if (loading && !data) return <Spinner />;
  if (!data) return null;
  const u = data.user;
  const org = data.organisation;
  return (
    <>
      <PageHeader
        title={org ? org.name : (u.email ?? u.id)}
        description={
          <>
            {org ? (
              <>
                Organisation <code>{org.slug}</code> · account
              </>
            ) : (
              "User"
            )}{" "}
            <code>{u.id}</code>
            {u.externalId ? (
              <>
                {" "}
                · identity <code>{u.externalId}</code>
              </>
            ) : null}{" "}
            · since {formatDate(u.createdAt)}
          </>
        }
        actions={
          <Link className="btn-secondary" href={org ? "/admin/organisations" : "/admin/users"}>
            {org ? "All organisations" : "All users"}
          </Link>
        }
      />
      {u.lockedAt ? (
        <Banner tone="danger" title={`Locked since ${formatDate(u.lockedAt, true)}`}>
          {u.lockReason}
        </Banner>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-3">
        <Card id="credits" title="Credits" className="lg:col-span-2">
          <dl className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-4">
            <Stat
              label="Subscription credits"
              value={n(data.credits.balances.subscription)}
              hint={`allocation ${n(data.credits.subscription.monthlyAllocation)}`}
            />
            <Stat
              label="Bonus credits"
              value={n(data.credits.balances.bonus)}
              hint={u.bonusCreditsAutoUse ? "auto-use on" : "auto-use off"}
            />
            <Stat label="Tier" value={<span className="capitalize">{u.tier}</span>} hint={u.billingPeriod} />
            <Stat label="Last reset" value={formatDate(data.credits.subscription.resetAt)} />
            {data.credits.debt > 0 ? (
              <Stat label="Debt" value={<span className="text-red-700">{n(data.credits.debt)}</span>} hint="charges refused until paid" />
            ) : null}
          </dl>
          {data.credits.bonus.length ? (
            <DataTable inline caption="Bonus purchases" rows={data.credits.bonus} rowKey={(p) => p.id} columns={BONUS_COLUMNS} />
          ) : null}
          {data.payments.length ? (
            <DataTable inline caption="Payments" rows={data.payments} rowKey={(p) => p.id} columns={PAYMENT_COLUMNS} />
          ) : null}
        </Card>
        <section className="card">
          <AdjustCredits userId={u.id} email={u.email} onDone={reload} />
        </section>
      </div>

      {org ? (
        <Card id="members" title="Members" className="mt-4 overflow-x-auto">
          <DataTable inline testId="members" rows={org.members} rowKey={(m) => m.userId} columns={MEMBER_COLUMNS} />
        </Card>
      ) : null}

      {org ? <AuditLog base={`/api/admin/organisations/${id}/audit`} /> : null}

      <Card id="ledger" title="Ledger (last 50)" className="mt-4 overflow-x-auto">
        {data.ledger.length === 0 ? (
          <EmptyState title="No ledger rows" />
        ) : (
          <DataTable inline testId="ledger" rows={data.ledger} rowKey={(row) => row.id} columns={LEDGER_COLUMNS} />
        )}
      </Card>

      <div className="mt-4 grid gap-4 lg:grid-cols-2">
        <Card id="subs" title="Subscriptions" className="overflow-x-auto">
          {data.subscriptions.length === 0 ? <p className="mt-2 text-sm text-slate-600">None: free plan.</p> : null}
          {data.subscriptions.map((s) => (
            <div key={s.id} className="mt-3 border-t border-slate-100 pt-3 text-sm">
              <p>
                <span className="font-medium capitalize">{s.tier}</span> {s.billingPeriod} · <strong>{s.status}</strong> · {s.provider}
              </p>
              <p className="text-xs text-slate-500">
                subscription <code>{s.providerSubscriptionId}</code>
                {s.providerCustomerId ? (
                  <>
                    {" "}
                    · customer <code>{s.providerCustomerId}</code>
                  </>
                ) : null}{" "}
                · variant <code>{s.variantId}</code>
              </p>
              <p className="text-xs text-slate-500">
                renews {formatDate(s.currentPeriodEnd)}
                {s.endsAt ? ` · ends ${formatDate(s.endsAt)}` : ""}
                {s.paymentFailedAt ? ` · payment failed ${formatDate(s.paymentFailedAt, true)}` : ""}
              </p>
              <ol className="mt-2 space-y-0.5 text-xs" aria-label="State history">
                {s.history.map((h, i) => (
                  <li key={i}>
                    {formatDate(h.occurredAt, true)}: {h.event} ({h.source}) {h.statusFrom ? `${h.statusFrom} → ` : ""}
                    {h.statusTo}
                  </li>
                ))}
              </ol>
            </div>
          ))}
        </Card>
        <Card id="deliveries" title="Webhook deliveries naming this user" className="overflow-x-auto">
          {data.deliveries.length === 0 ? <p className="mt-2 text-sm text-slate-600">None.</p> : null}
          <ul className="mt-2 space-y-1 text-sm">
            {data.deliveries.map((d) => (
              <li key={d.id}>
                <Link className="link" href={`/admin/webhooks/${d.id}`}>
                  {d.eventType}
                </Link>{" "}
                <span
                  className={
                    d.status === "failed" ? "font-medium text-red-700" : d.status === "pending" ? "text-amber-700" : "text-slate-600"
                  }
                >
                  {d.status}
                </span>{" "}
                <span className="text-xs text-slate-500">{formatDate(d.receivedAt, true)}</span>
                {d.error ? <div className="text-xs text-red-700">{d.error}</div> : null}
              </li>
            ))}
          </ul>
        </Card>
      </div>

      <div className="mt-4 grid gap-4 lg:grid-cols-2">
        <section className="card">
          <LockForm user={data} onDone={reload} />
        </section>
        <UserApiKeys user={data} onDone={reload} />
      </div>
      {org ? null : (
        <div className="mt-4 grid gap-4 lg:grid-cols-2">
          <SignInIdentities user={data} onDone={reload} />
          <Card id="counts" title="Data" className="text-sm">
            <dl className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-4">
              <Stat label="Files" value={n(data.counts.files)} />
              <Stat label="RAG documents" value={n(data.counts.ragDocuments)} />
              <Stat label="Conversations" value={n(data.counts.ragConversations)} />
              <Stat label="Emails" value={n(data.counts.emails)} />
            </dl>
            <p className="mt-3 text-slate-600">
              Downgrades during trial: {u.downgradeCount} · trial used: {u.hasUsedTrial ? "yes" : "no"} ·{" "}
              <Link className="link" href={`/admin/audit?targetId=${u.id}`}>
                audit log
              </Link>{" "}
              ·{" "}
              <Link className="link" href={`/admin/usage?userId=${u.id}`}>
                AI usage and cost
              </Link>
            </p>
          </Card>
        </div>
      )}
    </>
  );
}

/** Lock or unlock an account: a person (no sign-in, read-only sessions, keys suspended) or an organisation (a read-only wallet, keys suspended). */
function LockForm({ user, onDone }: { user: AdminUser; onDone: () => Promise<void> }) {
  const u = user.user;
  const org = user.organisation;
  const who = org ? org.name : (u.email ?? u.id);
  const lockEffect = org
    ? "its wallet can be read but not charged or changed by any member; its API keys are suspended until it is unlocked."
    : "no sign-in; their sessions can read but not change or spend anything; their API keys are suspended (every call answers 403) until the account is unlocked, not revoked.";
  return (
    <ConfirmForm
      title={`${u.lockedAt ? "Unlock" : "Lock"} this ${org ? "organisation" : "account"}`}
      summary={
        u.lockedAt
          ? `Unlock ${who}: ${org ? "its members can spend from its wallet again" : "they can sign in and use the service again"}.`
          : `Lock ${who}: ${lockEffect}`
      }
      confirmLabel={u.lockedAt ? "Confirm unlock" : "Confirm lock"}
      danger={!u.lockedAt}
      run={async (reason) => {
        const r = await apiJson<AdminLock>(`/api/admin/users/${u.id}/${u.lockedAt ? "unlock" : "lock"}`, {
          method: "POST",
          json: { reason },
        });
        return r.changed
          ? r.locked
            ? "Locked."
            : "Unlocked."
          : `Nothing changed: the ${org ? "organisation" : "account"} was already in that state.`;
      }}
      onDone={onDone}
    />
  );
}

/** The user's linked OAuth/OIDC identities, and unlinking one (which ends all of the user's sessions). */
function SignInIdentities({ user, onDone }: { user: AdminUser; onDone: () => Promise<void> }) {
  const [chosen, setChosen] = useState("");
  const identities = user.identities;
  const selected = identities.find((i) => i.id === chosen) ?? identities[0];
  return (
    <Card id="identities" title="Sign-in identities" className="text-sm">
      {identities.length === 0 ? (
        <p className="mt-2 text-slate-600">None linked: this user signs in by email (or was created by the identity webhook).</p>
      ) : (
        <>
          <ul className="mt-2 space-y-1">
            {identities.map((i) => (
              <li key={i.id}>
                <span className="font-medium">{i.provider}</span> <code className="text-xs">{i.providerAccountId}</code>{" "}
                <span className="text-xs text-slate-500">linked {formatDate(i.createdAt, true)}</span>
              </li>
            ))}
          </ul>
          <div className="mt-4">
            <ConfirmForm
              title="Unlink an identity"
              fields={
                <SelectField
                  id="unlink-identity"
                  label="Identity"
                  value={selected?.id ?? ""}
                  onChange={setChosen}
                  options={identities.map((i) => ({ value: i.id, label: `${i.provider} · ${i.providerAccountId}` }))}
                />
              }
              summary={`Unlink ${selected?.provider ?? ""} ${selected?.providerAccountId ?? ""} from ${user.user.email ?? user.user.id}: it no longer signs in as this user, every session of theirs ends now, and their active API keys are revoked (whoever held the identity may have made them).`}
              confirmLabel="Confirm unlink"
              danger
              run={async (reason) => {
                const r = await apiJson<AdminUnlink>(`/api/admin/users/${user.user.id}/identities/${selected?.id}/unlink`, {
                  method: "POST",
                  json: { reason },
                });
                return `Unlinked ${r.provider}; sessions signed in before ${formatDate(r.sessionsRevokedAt, true)} have ended; ${r.apiKeysRevoked} API key${r.apiKeysRevoked === 1 ? "" : "s"} revoked.`;
              }}
              onDone={onDone}
            />
          </div>
        </>
      )}
    </Card>
  );
}

/** The user's API keys (never their secrets), and revoking one. */
function UserApiKeys({ user, onDone }: { user: AdminUser; onDone: () => Promise<void> }) {
  const [chosen, setChosen] = useState("");
  const active = user.apiKeys.filter((k) => k.status !== "revoked");
  const selected = active.find((k) => k.id === chosen) ?? active[0];
  return (
    <Card id="api-keys" title="API keys" className="text-sm">
      {user.apiKeys.length === 0 ? (
        <p className="mt-2 text-slate-600">None: this user has not created keys for the /v1 API.</p>
      ) : (
        <ul className="mt-2 space-y-1">
          {user.apiKeys.map((k) => (
            <li key={k.id}>
              <span className="font-medium">{k.name}</span> <code className="text-xs">{k.display}</code> · {k.status} · spent{" "}
              {n(k.totalSpent)} credits
              {k.budget ? ` · budget ${n(k.budget.spent)}/${n(k.budget.credits)} ${k.budget.period}` : ""}{" "}
              <span className="text-xs text-slate-500">
                created {formatDate(k.createdAt, true)}, last used {k.lastUsedAt ? formatDate(k.lastUsedAt, true) : "never"}
              </span>
            </li>
          ))}
        </ul>
      )}
      {selected ? (
        <div className="mt-4">
          <ConfirmForm
            title="Revoke a key"
            fields={
              <SelectField
                id="revoke-key"
                label="Key"
                value={selected.id}
                onChange={setChosen}
                options={active.map((k) => ({ value: k.id, label: `${k.name} · ${k.display}` }))}
              />
            }
            summary={`Revoke ${selected.name} (${selected.display}) of ${user.user.email ?? user.user.id}: calls with it stop within 5 seconds, for good.`}
            confirmLabel="Confirm revoke"
            danger
            run={async (reason) => {
              const r = await apiJson<AdminRevokeKey>(`/api/admin/users/${user.user.id}/keys/${selected.id}/revoke`, {
                method: "POST",
                json: { reason },
              });
              return r.changed ? `Revoked ${r.key.display}.` : "Nothing changed: the key was already revoked.";
            }}
            onDone={onDone}
          />
        </div>
      ) : null}
    </Card>
  );
}

/** The adjust-credits form: amount (±), bucket, reason, then a confirmation; one idempotency key per form. */
function AdjustCredits({ userId, email, onDone }: { userId: string; email: string | null; onDone: () => Promise<void> }) {
  const [amount, setAmount] = useState("");
  const [bucket, setBucket] = useState<"subscription" | "bonus">("subscription");
  // A fresh key per adjustment: a double submit or a retried request applies it once.
  const [key, setKey] = useState(() => crypto.randomUUID());
  const value = Number(amount);
  const valid = Number.isInteger(value) && value !== 0 && amount.trim() !== "";
  return (
    <ConfirmForm
      title="Adjust credits"
      canReview={valid}
      fields={
        <div className="grid gap-3 xl:grid-cols-2">
          <Field id="adjust-amount" label="Amount (negative removes)">
            <input
              id="adjust-amount"
              className="input"
              inputMode="numeric"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              placeholder="e.g. 500 or -100"
            />
          </Field>
          <SelectField
            id="adjust-bucket"
            label="Bucket"
            value={bucket}
            onChange={(v) => setBucket(v as "subscription" | "bonus")}
            options={[
              { value: "subscription", label: "Subscription credits" },
              { value: "bonus", label: "Bonus credits" },
            ]}
          />
        </div>
      }
      summary={
        valid
          ? `${value > 0 ? "Add" : "Remove"} ${n(Math.abs(value))} ${bucket} credits ${value > 0 ? "to" : "from"} ${email ?? userId}.`
          : ""
      }
      confirmLabel="Confirm adjustment"
      run={async (reason) => {
        const r = await apiJson<AdminAdjustment>(`/api/admin/users/${userId}/credits`, {
          method: "POST",
          json: { amount: value, bucket, reason, idempotencyKey: key },
        });
        return r.applied
          ? `Adjusted: subscription ${n(r.balances.subscription)}, bonus ${n(r.balances.bonus)}.`
          : "This adjustment was already applied; nothing changed.";
      }}
      onDone={() => {
        setAmount("");
        setKey(crypto.randomUUID());
        void onDone();
      }}
    />
  );
}
