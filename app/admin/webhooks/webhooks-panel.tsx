"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { AdminDeliveries } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader, Spinner } from "@/components/ui";
import { useApi } from "@/components/use-api";

type Filters = { source: string; status: string; type: string; q: string };

const STATUS_TONE: Record<string, string> = { failed: "text-red-700 font-medium", pending: "text-amber-700", processed: "text-emerald-700", ignored: "text-slate-500" };

/** Webhook deliveries with filters; each links to its payload and replay. */
export function WebhooksPanel({ initial }: { initial: Filters }) {
  const [form, setForm] = useState<Filters>(initial);
  const [filters, setFilters] = useState<Filters>(initial);
  const [cursor, setCursor] = useState<string | null>(null);
  const params = new URLSearchParams({ limit: "25" });
  for (const [k, v] of Object.entries(filters)) if (v) params.set(k, v);
  if (cursor) params.set("cursor", cursor);
  const { data, error, loading } = useApi<AdminDeliveries>(`/api/admin/webhooks?${params}`);

  function apply(event: FormEvent) {
    event.preventDefault();
    setCursor(null);
    setFilters({ ...form, type: form.type.trim(), q: form.q.trim() });
  }

  const select = (name: "source" | "status", label: string, options: string[]) => (
    <div>
      <label htmlFor={`wh-${name}`} className="field-label">
        {label}
      </label>
      <select id={`wh-${name}`} className="input" value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })}>
        <option value="">Any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <>
      <PageHeader title="Webhook deliveries" description="Every delivery the identity, payment and email providers sent, as received. A failed or pending one can be replayed after its cause is fixed." />
      <form className="card mb-4 grid gap-3 sm:grid-cols-5" onSubmit={apply} aria-label="Filter deliveries">
        {select("source", "Source", ["payment", "identity", "email"])}
        {select("status", "Status", ["failed", "pending", "processed", "ignored", "received"])}
        <div>
          <label htmlFor="wh-type" className="field-label">
            Event type
          </label>
          <input id="wh-type" className="input" value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value })} placeholder="order_created" />
        </div>
        <div>
          <label htmlFor="wh-q" className="field-label">
            Email or id
          </label>
          <input id="wh-q" className="input" value={form.q} onChange={(e) => setForm({ ...form, q: e.target.value })} placeholder="buyer@example.com" />
        </div>
        <div className="flex items-end">
          <button type="submit" className="btn-primary w-full">
            Filter
          </button>
        </div>
      </form>
      {error ? <ErrorNotice error={error} /> : null}
      {loading && !data ? <Spinner /> : null}
      {data && data.deliveries.length === 0 ? <EmptyState title="No delivery matches" /> : null}
      {data && data.deliveries.length > 0 ? (
        <div className="card overflow-x-auto p-0">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">Event</th>
                <th scope="col" className="px-4 py-2">Status</th>
                <th scope="col" className="px-4 py-2">Buyer / user</th>
                <th scope="col" className="px-4 py-2">Received</th>
                <th scope="col" className="px-4 py-2">Processed</th>
              </tr>
            </thead>
            <tbody>
              {data.deliveries.map((d) => (
                <tr key={d.id} className="border-t border-slate-100 align-top">
                  <td className="px-4 py-2">
                    <Link className="link" href={`/admin/webhooks/${d.id}`}>
                      {d.eventType}
                    </Link>
                    <div className="text-xs text-slate-500">
                      {d.source}
                      {d.objectId ? ` · ${d.objectId}` : ""}
                    </div>
                  </td>
                  <td className="px-4 py-2">
                    <span className={STATUS_TONE[d.status] ?? ""}>{d.status}</span>
                    {d.error ? <div className="max-w-xs text-xs text-red-700">{d.error}</div> : null}
                  </td>
                  <td className="px-4 py-2 text-xs">{d.userEmail ?? d.userRef ?? "—"}</td>
                  <td className="px-4 py-2">{formatDate(d.receivedAt, true)}</td>
                  <td className="px-4 py-2">{formatDate(d.processedAt, true)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <div className="mt-3 flex gap-2">
        {cursor ? (
          <button type="button" className="btn-secondary" onClick={() => setCursor(null)}>
            First page
          </button>
        ) : null}
        {data?.nextCursor ? (
          <button type="button" className="btn-secondary" onClick={() => setCursor(data.nextCursor)}>
            Next page
          </button>
        ) : null}
      </div>
    </>
  );
}
