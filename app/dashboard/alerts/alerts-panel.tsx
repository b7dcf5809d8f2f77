"use client";

import { useState, type FormEvent } from "react";
import { apiJson, formatDate, toApiError, type ApiError } from "@/components/api";
import { DataTable, type Column } from "@/components/data-table";
import { ErrorNotice } from "@/components/error-notice";
import { Field, TextField } from "@/components/form-field";
import type { Alerts, WebhookDeliveries, WebhookEndpointCreated, WebhookEndpoints, WebhookEvents } from "@/components/types";
import { Pending } from "@/components/paged-list";
import { Banner, Card, EmptyState, PageHeader } from "@/components/ui";
import { useApi } from "@/components/use-api";

/**
 * Spend alerts (thresholds of the monthly allocation, a low-balance level, email) and outbound webhook
 * endpoints with their delivery logs, for the account the session acts for.
 */
export function AlertsPanel({ events }: { events: string[] }) {
  const [error, setError] = useState<ApiError | null>(null);
  return (
    <>
      <PageHeader
        title="Alerts and webhooks"
        description="Be told before the credits run out: by email, and by signed webhooks to your own systems. Each alert fires once per period (the monthly allocation; for a low balance, until you top up)."
      />
      {error ? <ErrorNotice error={error} /> : null}
      <AlertSettingsCard onError={setError} />
      <Endpoints events={events} onError={setError} />
      <EventsCard events={events} onError={setError} />
    </>
  );
}

function AlertSettingsCard({ onError }: { onError: (e: ApiError | null) => void }) {
  const alerts = useApi<Alerts>("/api/alerts");
  const [thresholds, setThresholds] = useState<string | null>(null);
  const [low, setLow] = useState<string | null>(null);
  const [email, setEmail] = useState<boolean | null>(null);
  const [hourly, setHourly] = useState<string | null>(null);
  const [projection, setProjection] = useState<boolean | null>(null);
  const [saved, setSaved] = useState(false);
  if (!alerts.data) return <Pending resource={alerts} />;
  const a = alerts.data.alerts;
  async function save(event: FormEvent) {
    event.preventDefault();
    onError(null);
    setSaved(false);
    try {
      const list = (thresholds ?? a.allocationThresholds.join(", "))
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean)
        .map(Number);
      await apiJson("/api/alerts", {
        method: "PUT",
        json: {
          allocationThresholds: list,
          lowBalance: Number(low ?? a.lowBalance),
          email: email ?? a.email,
          hourlySpendLimit: Number(hourly ?? a.hourlySpendLimit ?? 0),
          projectedOverrun: projection ?? a.projectedOverrun,
        },
      });
      await alerts.reload();
      setSaved(true);
    } catch (e) {
      onError(toApiError(e));
    }
  }
  const firedColumns: Column<Alerts["fired"][number]>[] = [
    { header: "Alert", cell: (f) => f.alert },
    { header: "When", cell: (f) => formatDate(f.createdAt, true) },
  ];
  return (
    <Card id="alerts" title="Spend alerts">
      <form className="mt-3 grid gap-3 sm:grid-cols-3" onSubmit={save}>
        <Field id="alert-thresholds" label="Percentages of the monthly credits" hint="comma-separated, e.g. 80, 100">
          <input
            id="alert-thresholds"
            className="input"
            value={thresholds ?? a.allocationThresholds.join(", ")}
            onChange={(e) => setThresholds(e.target.value)}
          />
        </Field>
        <Field id="alert-low" label="Low balance under (credits)" hint="0: never">
          <input
            id="alert-low"
            className="input"
            inputMode="numeric"
            value={low ?? String(a.lowBalance)}
            onChange={(e) => setLow(e.target.value)}
          />
        </Field>
        <Field id="alert-hourly" label="Hourly spend limit (credits)" hint="alerts when an hour's spend reaches it; 0: off">
          <input
            id="alert-hourly"
            className="input"
            inputMode="numeric"
            value={hourly ?? String(a.hourlySpendLimit ?? 0)}
            onChange={(e) => setHourly(e.target.value)}
          />
        </Field>
        <label className="flex items-center gap-2 self-end pb-2 text-sm">
          <input type="checkbox" checked={projection ?? a.projectedOverrun} onChange={(e) => setProjection(e.target.checked)} /> Alert when
          this month&apos;s pace would run the credits out
        </label>
        <label className="flex items-center gap-2 self-end pb-2 text-sm">
          <input type="checkbox" checked={email ?? a.email} onChange={(e) => setEmail(e.target.checked)} /> Email me the alerts
        </label>
        <div className="sm:col-span-3">
          <button type="submit" className="btn-primary">
            Save alerts
          </button>
          {saved ? (
            <span className="ml-3 text-sm text-emerald-700" role="status">
              Saved.
            </span>
          ) : null}
        </div>
      </form>
      <p className="mt-3 text-xs text-slate-500">
        An API key with a budget alerts when its budget is used up; choose other percentages when you create it on the API keys page.
      </p>
      {alerts.data.fired.length ? (
        <DataTable
          inline
          caption="Alerts that fired"
          testId="alerts-fired"
          rows={alerts.data.fired}
          rowKey={(f) => `${f.alert}|${f.period}`}
          columns={firedColumns}
        />
      ) : null}
    </Card>
  );
}

function Endpoints({ events, onError }: { events: string[]; onError: (e: ApiError | null) => void }) {
  const list = useApi<WebhookEndpoints>("/api/webhook-endpoints");
  const [url, setUrl] = useState("");
  const [chosen, setChosen] = useState<string[]>(["credits.low", "credits.depleted", "budget.threshold"]);
  const [format, setFormat] = useState<"standard" | "slack">("standard");
  const [created, setCreated] = useState<WebhookEndpointCreated | null>(null);
  const [rotated, setRotated] = useState<WebhookEndpointCreated | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  async function run(action: () => Promise<unknown>) {
    onError(null);
    try {
      await action();
      await list.reload();
    } catch (e) {
      onError(toApiError(e));
    }
  }
  async function create(event: FormEvent) {
    event.preventDefault();
    await run(async () => {
      setCreated(
        await apiJson<WebhookEndpointCreated>("/api/webhook-endpoints", {
          method: "POST",
          json: { url: url.trim(), events: chosen, format },
        }),
      );
      setRotated(null);
      setUrl("");
    });
  }
  const endpointColumns: Column<WebhookEndpoints["endpoints"][number]>[] = [
    { header: "URL", cell: (e) => <span className="break-words">{e.url}</span> },
    { header: "Events", cell: (e) => e.events.join(", ") },
    { header: "Format", cell: (e) => (e.format === "slack" ? "Slack text" : "event JSON") },
    {
      header: "Status",
      cell: (e) =>
        `${e.enabled ? "enabled" : `disabled: ${e.disabledReason ?? ""}`}${
          e.previousSecretExpiresAt ? `; the old secret signs too until ${formatDate(e.previousSecretExpiresAt, true)}` : ""
        }`,
    },
    {
      header: "",
      align: "right",
      cell: (e) => (
        <span className="flex flex-wrap justify-end gap-1">
          <button
            type="button"
            className="btn-secondary"
            onClick={() => void run(() => apiJson(`/api/webhook-endpoints/${e.id}/test`, { method: "POST" }))}
          >
            Send test
          </button>
          <button type="button" className="btn-secondary" onClick={() => setOpen(open === e.id ? null : e.id)}>
            {open === e.id ? "Hide deliveries" : "Deliveries"}
          </button>
          <button
            type="button"
            className="btn-secondary"
            onClick={() =>
              void run(async () => {
                setRotated(
                  await apiJson<WebhookEndpointCreated>(`/api/webhook-endpoints/${e.id}/rotate-secret`, { method: "POST", json: {} }),
                );
                setCreated(null);
              })
            }
          >
            Rotate secret
          </button>
          <button
            type="button"
            className="btn-secondary"
            onClick={() => void run(() => apiJson(`/api/webhook-endpoints/${e.id}`, { method: "PATCH", json: { enabled: !e.enabled } }))}
          >
            {e.enabled ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            className="btn-danger"
            onClick={() => void run(() => apiJson(`/api/webhook-endpoints/${e.id}`, { method: "DELETE" }))}
          >
            Delete
          </button>
        </span>
      ),
    },
  ];
  return (
    <Card id="endpoints" title="Webhook endpoints" className="mt-4 overflow-x-auto">
      <p className="mt-1 text-sm text-slate-600">
        Deliveries are JSON, signed by the Standard Webhooks scheme (headers webhook-id, webhook-timestamp, webhook-signature), retried with
        backoff for 3 days.
      </p>
      {created ? (
        <Banner tone="success" title="Endpoint added. Copy its signing secret now: it is not shown again.">
          <code className="break-all font-mono text-xs" data-testid="endpoint-secret">
            {created.secret}
          </code>
        </Banner>
      ) : null}
      {rotated ? (
        <Banner
          tone="success"
          title="Secret rotated. Copy the new one now: it is not shown again. The old one signs beside it until the time shown."
        >
          <code className="break-all font-mono text-xs" data-testid="rotated-secret">
            {rotated.secret}
          </code>
        </Banner>
      ) : null}
      <form className="mt-3 space-y-2" onSubmit={create}>
        <TextField id="endpoint-url" label="URL" required placeholder="https://example.com/webhooks" value={url} onChange={setUrl} />
        <fieldset className="flex flex-wrap gap-3 text-sm">
          <legend className="field-label">Events</legend>
          {events.map((e) => (
            <label key={e} className="flex items-center gap-1">
              <input
                type="checkbox"
                checked={chosen.includes(e)}
                onChange={(ev) => setChosen(ev.target.checked ? [...chosen, e] : chosen.filter((x) => x !== e))}
              />{" "}
              {e}
            </label>
          ))}
        </fieldset>
        <Field id="endpoint-format" label="Format">
          <select id="endpoint-format" className="input" value={format} onChange={(e) => setFormat(e.target.value as "standard" | "slack")}>
            <option value="standard">Event JSON (signed)</option>
            <option value="slack">Slack-compatible text (incoming webhook)</option>
          </select>
        </Field>
        <button type="submit" className="btn-primary" disabled={!url.trim() || chosen.length === 0}>
          Add endpoint
        </button>
      </form>
      {!list.data ? (
        <Pending resource={list} />
      ) : list.data.endpoints.length === 0 ? (
        <EmptyState title="No endpoints yet" />
      ) : (
        <DataTable inline testId="endpoints" rows={list.data.endpoints} rowKey={(e) => e.id} columns={endpointColumns} />
      )}
      {open ? <Deliveries endpointId={open} onError={onError} /> : null}
    </Card>
  );
}

function Deliveries({ endpointId, onError }: { endpointId: string; onError: (e: ApiError | null) => void }) {
  const log = useApi<WebhookDeliveries>(`/api/webhook-endpoints/${endpointId}/deliveries`);
  const [since, setSince] = useState(() => new Date(Date.now() - 86_400_000).toISOString().slice(0, 16));
  const [recovered, setRecovered] = useState<number | null>(null);
  if (!log.data) return <Pending resource={log} />;
  async function recover(event: FormEvent) {
    event.preventDefault();
    onError(null);
    try {
      const answer = await apiJson<{ recovered: number }>(`/api/webhook-endpoints/${endpointId}/recover`, {
        method: "POST",
        json: { since: new Date(since).toISOString() },
      });
      setRecovered(answer.recovered);
      await log.reload();
    } catch (e) {
      onError(toApiError(e));
    }
  }
  const deliveryColumns: Column<WebhookDeliveries["deliveries"][number]>[] = [
    { header: "Event", cell: (d) => d.type },
    { header: "Status", cell: (d) => d.status },
    { header: "Attempts", align: "right", cell: (d) => d.attempts },
    { header: "Last answer", cell: (d) => d.lastError ?? (d.lastStatus ? String(d.lastStatus) : "—") },
    { header: "Created", cell: (d) => formatDate(d.createdAt, true) },
    {
      header: "",
      align: "right",
      cell: (d) =>
        d.status === "pending" ? null : (
          <button
            type="button"
            className="btn-secondary"
            onClick={() =>
              void apiJson(`/api/webhook-endpoints/${endpointId}/deliveries/${d.id}/replay`, { method: "POST" }).then(
                () => log.reload(),
                (e: unknown) => onError(toApiError(e)),
              )
            }
          >
            Replay
          </button>
        ),
    },
  ];
  return (
    <div className="mt-3">
      <form className="flex flex-wrap items-end gap-2" onSubmit={recover}>
        <Field id="recover-since" label="Failed deliveries since">
          <input id="recover-since" type="datetime-local" className="input" value={since} onChange={(e) => setSince(e.target.value)} />
        </Field>
        <button type="submit" className="btn-secondary">
          Send failed again
        </button>
        {recovered !== null ? (
          <span className="text-sm text-slate-600" role="status">
            {recovered} sent again.
          </span>
        ) : null}
      </form>
      <button type="button" className="btn-secondary mt-2" aria-label="Refresh deliveries" onClick={() => void log.reload()}>
        Refresh
      </button>
      <DataTable
        inline
        caption="Deliveries (newest first)"
        testId="deliveries"
        rows={log.data.deliveries}
        rowKey={(d) => d.id}
        columns={deliveryColumns}
      />
    </div>
  );
}

/** The account's events (what its endpoints and mails were to receive), by type, paged, each with a Resend. */
function EventsCard({ events, onError }: { events: string[]; onError: (e: ApiError | null) => void }) {
  const [type, setType] = useState("");
  const [cursor, setCursor] = useState<string | null>(null);
  const [resent, setResent] = useState<string | null>(null);
  const query = new URLSearchParams({ limit: "20", ...(type ? { type } : {}), ...(cursor ? { cursor } : {}) });
  const list = useApi<WebhookEvents>(`/api/webhook-events?${query.toString()}`);
  const columns: Column<WebhookEvents["events"][number]>[] = [
    { header: "Event", cell: (e) => e.type },
    { header: "Created", cell: (e) => formatDate(e.createdAt, true) },
    {
      header: "Deliveries",
      cell: (e) => (e.deliveries.length ? e.deliveries.map((d) => `${d.channel}: ${d.status}`).join(", ") : "none"),
    },
    {
      header: "",
      align: "right",
      cell: (e) => (
        <button
          type="button"
          className="btn-secondary"
          onClick={() =>
            void apiJson(`/api/webhook-events/${e.id}/resend`, { method: "POST" }).then(
              () => {
                setResent(e.id);
                return list.reload();
              },
              (error: unknown) => onError(toApiError(error)),
            )
          }
        >
          Resend
        </button>
      ),
    },
  ];
  return (
    <Card id="events" title="Events" className="mt-4 overflow-x-auto">
      <div className="mt-2 flex flex-wrap items-end gap-2">
        <Field id="events-type" label="Type">
          <select
            id="events-type"
            className="input"
            value={type}
            onChange={(e) => {
              setType(e.target.value);
              setCursor(null);
            }}
          >
            <option value="">All</option>
            {[...events.filter((e) => !e.endsWith(".*")), "webhook.test"].map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" className="btn-secondary" aria-label="Refresh events" onClick={() => void list.reload()}>
          Refresh
        </button>
        {resent ? (
          <span className="text-sm text-slate-600" role="status">
            Sent again.
          </span>
        ) : null}
      </div>
      {!list.data ? (
        <Pending resource={list} />
      ) : list.data.events.length === 0 ? (
        <EmptyState title="No events yet" />
      ) : (
        <DataTable inline testId="events" rows={list.data.events} rowKey={(e) => e.id} columns={columns} />
      )}
      <div className="mt-2 flex gap-2">
        {cursor ? (
          <button type="button" className="btn-secondary" onClick={() => setCursor(null)}>
            First page
          </button>
        ) : null}
        {list.data?.nextCursor ? (
          <button type="button" className="btn-secondary" onClick={() => setCursor(list.data?.nextCursor ?? null)}>
            Next page
          </button>
        ) : null}
      </div>
    </Card>
  );
}
