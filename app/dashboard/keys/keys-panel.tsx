"use client";

import { TextField } from "@/components/form-field";
import { useState } from "react";
import { apiJson, toApiError, type ApiError } from "@/components/api";
import { ConfirmButtons } from "@/components/confirm-buttons";
import { DataTable } from "@/components/data-table";
import { ErrorNotice } from "@/components/error-notice";
import type { ActiveAccount, ApiKeyCreated, ApiKeyList, ApiKeyView } from "@/components/types";
import { Pending } from "@/components/paged-list";
import { Banner, EmptyState, PageHeader } from "@/components/ui";
import { useApi } from "@/components/use-api";

const PERIODS = { day: "per day", month: "per month", total: "in total" } as const;

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : "never";
}

function budgetText(k: ApiKeyView): string {
  if (!k.budget) return "no budget";
  const resets = k.budget.resetsAt ? `, resets ${new Date(k.budget.resetsAt).toLocaleString()}` : "";
  return `${k.budget.spent} of ${k.budget.credits} credits ${PERIODS[k.budget.period as keyof typeof PERIODS] ?? k.budget.period}${resets}`;
}

/** The secret of a key just created: shown this once, with the lines that use it. */
function NewSecret({ created, onDone }: { created: ApiKeyCreated; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const base = typeof window === "undefined" ? "/v1" : `${window.location.origin}/v1`;
  return (
    <Banner tone="success" title={`Key “${created.key.name}” created. Copy it now: it is not shown again.`}>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code className="break-all rounded bg-white px-2 py-1 font-mono text-xs" data-testid="new-key-secret">
          {created.secret}
        </code>
        <button
          type="button"
          className="btn-secondary"
          onClick={() =>
            void navigator.clipboard?.writeText(created.secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className="btn-secondary" onClick={onDone}>
          Done
        </button>
      </div>
      <pre className="mt-3 overflow-x-auto rounded bg-white p-2 font-mono text-xs text-slate-800">{`import OpenAI from "openai";
const client = new OpenAI({ baseURL: "${base}", apiKey: process.env.API_KEY });
const answer = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] });`}</pre>
    </Banner>
  );
}

/** "80, 100" as [80, 100]; anything that is not a number is left out (the API checks the range). */
function percentagesOf(text: string): number[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map(Number)
    .filter((value) => Number.isFinite(value));
}

function CreateKeyForm({
  models,
  kinds,
  serviceFor,
  onCreated,
  onError,
}: {
  models: { id: string; kind: string }[];
  kinds: string[];
  /** Acting for an organisation as its owner or an admin: its name (a service key may be made for it). */
  serviceFor: string | null;
  onCreated: (c: ApiKeyCreated) => void;
  onError: (e: ApiError | null) => void;
}) {
  const [name, setName] = useState("");
  const [chosenModels, setChosenModels] = useState<string[]>([]);
  const [chosenKinds, setChosenKinds] = useState<string[]>([]);
  const [budget, setBudget] = useState("");
  const [period, setPeriod] = useState<"day" | "month" | "total">("month");
  const [alertAt, setAlertAt] = useState("100");
  const [rpm, setRpm] = useState("");
  const [expires, setExpires] = useState("");
  const [service, setService] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    onError(null);
    try {
      const created = await apiJson<ApiKeyCreated>("/api/keys", {
        method: "POST",
        json: {
          name: name.trim(),
          ...(chosenModels.length ? { models: chosenModels } : {}),
          ...(chosenKinds.length ? { kinds: chosenKinds } : {}),
          ...(budget ? { budget: { credits: Number(budget), period }, alertThresholds: percentagesOf(alertAt) } : {}),
          ...(rpm ? { rpm: Number(rpm) } : {}),
          ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
          ...(service ? { service: true } : {}),
        },
      });
      onCreated(created);
      setName("");
      setChosenModels([]);
      setChosenKinds([]);
      setBudget("");
      setRpm("");
      setExpires("");
      setService(false);
    } catch (e) {
      onError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  const toggle = (list: string[], value: string) => (list.includes(value) ? list.filter((v) => v !== value) : [...list, value]);
  return (
    <section className="card" aria-label="New API key">
      <h2 className="mb-3 text-base">New key</h2>
      <form onSubmit={submit} className="space-y-4">
        <TextField id="key-name" label="Name" required maxLength={100} value={name} onChange={setName} placeholder="e.g. mobile app" />
        {serviceFor ? (
          <label className="inline-flex items-center gap-2 text-sm">
            <input type="checkbox" checked={service} onChange={(e) => setService(e.target.checked)} data-testid="key-service" />
            Service key: belongs to {serviceFor}, not to you (no member&apos;s caps; kept when you leave)
          </label>
        ) : null}
        <fieldset>
          <legend className="field-label">Call kinds (none checked: all)</legend>
          <div className="flex flex-wrap gap-4 text-sm">
            {kinds.map((k) => (
              <label key={k} className="inline-flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={chosenKinds.includes(k)}
                  onChange={() => setChosenKinds(toggle(chosenKinds, k))}
                  className="accent-brand-600"
                />
                {k}
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend className="field-label">Models (none checked: every model you may use)</legend>
          <div className="grid gap-1 text-sm sm:grid-cols-2">
            {models.map((m) => (
              <label key={m.id} className="inline-flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={chosenModels.includes(m.id)}
                  onChange={() => setChosenModels(toggle(chosenModels, m.id))}
                  className="accent-brand-600"
                />
                <span className="font-mono text-xs">{m.id}</span> <span className="text-slate-500">({m.kind})</span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-3">
          <div>
            <label htmlFor="key-budget" className="field-label">
              Credit budget (optional)
            </label>
            <div className="flex gap-2">
              <input
                id="key-budget"
                type="number"
                min={1}
                step={1}
                className="input"
                value={budget}
                onChange={(e) => setBudget(e.target.value)}
              />
              <select
                aria-label="Budget period"
                className="input"
                value={period}
                onChange={(e) => setPeriod(e.target.value as typeof period)}
              >
                <option value="day">per day</option>
                <option value="month">per month</option>
                <option value="total">in total</option>
              </select>
            </div>
            {budget ? (
              <>
                <label htmlFor="key-alert-at" className="field-label mt-2">
                  Alert at (% of the budget, comma-separated; empty: never)
                </label>
                <input
                  id="key-alert-at"
                  className="input"
                  inputMode="numeric"
                  placeholder="80, 100"
                  value={alertAt}
                  onChange={(e) => setAlertAt(e.target.value)}
                />
              </>
            ) : null}
          </div>
          <div>
            <label htmlFor="key-rpm" className="field-label">
              Requests per minute (optional)
            </label>
            <input id="key-rpm" type="number" min={1} step={1} className="input" value={rpm} onChange={(e) => setRpm(e.target.value)} />
          </div>
          <div>
            <label htmlFor="key-expires" className="field-label">
              Expires (optional)
            </label>
            <input id="key-expires" type="date" className="input" value={expires} onChange={(e) => setExpires(e.target.value)} />
          </div>
        </div>
        <div className="flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy || !name.trim()}>
            {busy ? "Creating…" : "Create key"}
          </button>
        </div>
      </form>
    </section>
  );
}

/** GET/POST /api/keys, PATCH/DELETE /api/keys/{id}: keys for the OpenAI-compatible API (/v1). */
export function KeysPanel({ models, kinds }: { models: { id: string; kind: string }[]; kinds: string[] }) {
  const keys = useApi<ApiKeyList>("/api/keys");
  const active = useApi<ActiveAccount>("/api/account/active");
  const acting = active.data?.account;
  const serviceFor = acting?.kind === "organisation" && acting.role !== "member" ? (acting.name ?? "the organisation") : null;
  const [error, setError] = useState<ApiError | null>(null);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [confirmRevoke, setConfirmRevoke] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);

  async function change(k: ApiKeyView, init: RequestInit & { json?: unknown }, done: string) {
    setBusyId(k.id);
    setError(null);
    setNotice(null);
    try {
      await apiJson(`/api/keys/${encodeURIComponent(k.id)}`, init);
      await keys.reload();
      setNotice(done);
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusyId(null);
      setConfirmRevoke(null);
      setRenaming(null);
    }
  }

  const list = keys.data?.keys ?? [];
  /** A key's actions: rename or revoke it (each asks first), or nothing once it is revoked. */
  const keyActions = (k: ApiKeyView) =>
    k.status === "revoked" ? null : renaming?.id === k.id ? (
      <form
        className="inline-flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          void change(k, { method: "PATCH", json: { name: renaming.name.trim() } }, `Renamed to “${renaming.name.trim()}”.`);
        }}
      >
        <input
          aria-label={`New name for ${k.name}`}
          className="input w-40"
          required
          maxLength={100}
          value={renaming.name}
          onChange={(e) => setRenaming({ id: k.id, name: e.target.value })}
        />
        <button type="submit" className="btn-primary" disabled={busyId !== null || !renaming.name.trim()}>
          Save
        </button>
        <button type="button" className="btn-secondary" onClick={() => setRenaming(null)}>
          Cancel
        </button>
      </form>
    ) : confirmRevoke === k.id ? (
      <ConfirmButtons
        className="btn-danger mr-2"
        confirmLabel="Confirm revoke"
        busyLabel="Revoking…"
        busy={busyId === k.id}
        disabled={busyId !== null}
        onConfirm={() => void change(k, { method: "DELETE" }, `Revoked “${k.name}”: programs using it stop within seconds.`)}
        onKeep={() => setConfirmRevoke(null)}
      />
    ) : (
      <>
        <button
          type="button"
          className="btn-secondary mr-2"
          disabled={busyId !== null}
          onClick={() => setRenaming({ id: k.id, name: k.name })}
        >
          Rename<span className="sr-only"> {k.name}</span>
        </button>
        <button type="button" className="btn-danger" disabled={busyId !== null} onClick={() => setConfirmRevoke(k.id)}>
          Revoke<span className="sr-only"> {k.name}</span>
        </button>
      </>
    );
  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys let your programs call the OpenAI-compatible API at <code className="font-mono">/v1</code> with any OpenAI SDK. Calls are
            charged in your credits like the dashboard&apos;s; each key can have its own budget, models, call kinds, rate limit and expiry.
          </>
        }
      />
      <ErrorNotice error={error} onDismiss={() => setError(null)} />
      {notice ? <Banner tone="success">{notice}</Banner> : null}
      {created ? (
        <NewSecret
          created={created}
          onDone={() => {
            setCreated(null);
          }}
        />
      ) : null}
      <div className="space-y-6">
        <CreateKeyForm
          models={models}
          kinds={kinds}
          serviceFor={serviceFor}
          onError={setError}
          onCreated={(c) => {
            setCreated(c);
            void keys.reload();
          }}
        />
        <section className="card overflow-x-auto" aria-label="Your keys">
          <h2 className="mb-3 text-base">Your keys</h2>
          {!keys.data ? (
            <Pending resource={keys} />
          ) : list.length === 0 ? (
            <EmptyState title="No keys yet">Create one above; its secret is shown once.</EmptyState>
          ) : (
            <DataTable
              inline
              rows={list}
              rowKey={(k) => k.id}
              rowTestId="api-key-row"
              columns={[
                { header: "Name", cell: (k) => k.name, cellClass: () => "font-medium" },
                { header: "Key", cell: (k) => k.display, cellClass: () => "font-mono text-xs" },
                { header: "Status", cell: (k) => (k.service ? `${k.status} · service key` : k.status) },
                { header: "Budget", cell: (k) => budgetText(k) },
                {
                  header: "Limits",
                  cell: (k) =>
                    `${k.models.length ? k.models.join(", ") : "all models"}; ${k.kinds.length ? k.kinds.join(", ") : "all kinds"}${k.rpm ? `; ${k.rpm}/min` : ""}${k.expiresAt ? `; expires ${when(k.expiresAt)}` : ""}`,
                  cellClass: () => "text-xs text-slate-600",
                },
                { header: "Spent", cell: (k) => `${k.totalSpent} credits` },
                { header: "Last used", cell: (k) => when(k.lastUsedAt) },
                {
                  header: "",
                  align: "right",
                  cellClass: () => "whitespace-nowrap",
                  cell: keyActions,
                },
              ]}
            />
          )}
        </section>
      </div>
    </>
  );
}
