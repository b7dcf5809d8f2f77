"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { AdminDeliveries } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { Field, SelectField } from "@/components/form-field";
import { PagedTable, useCursorList } from "@/components/paged-list";
import { EmptyState, PageHeader } from "@/components/ui";

type Filters = { source: string; status: string; type: string; q: string };

const STATUS_TONE: Record<string, string> = {
  failed: "text-red-700 font-medium",
  pending: "text-amber-700",
  processed: "text-emerald-700",
  ignored: "text-slate-500",
};

/** Webhook deliveries with filters; each links to its payload and replay. */
export function WebhooksPanel({ initial }: { initial: Filters }) {
  const [form, setForm] = useState<Filters>(initial);
  const [filters, setFilters] = useState<Filters>(initial);
  const list = useCursorList<AdminDeliveries>("/api/admin/webhooks", filters);

  function apply(event: FormEvent) {
    event.preventDefault();
    setFilters({ ...form, type: form.type.trim(), q: form.q.trim() });
  }

  return (
    <>
      <PageHeader
        title="Webhook deliveries"
        description="Every delivery the identity, payment and email providers sent, as received. A failed or pending one can be replayed after its cause is fixed."
      />
      <form className="card mb-4 grid gap-3 sm:grid-cols-5" onSubmit={apply} aria-label="Filter deliveries">
        <SelectField
          id="wh-source"
          label="Source"
          value={form.source}
          onChange={(source) => setForm({ ...form, source })}
          options={["payment", "identity", "email"]}
          any="Any"
        />
        <SelectField
          id="wh-status"
          label="Status"
          value={form.status}
          onChange={(status) => setForm({ ...form, status })}
          options={["failed", "pending", "processed", "ignored", "received"]}
          any="Any"
        />
        <Field id="wh-type" label="Event type">
          <input
            id="wh-type"
            className="input"
            value={form.type}
            onChange={(e) => setForm({ ...form, type: e.target.value })}
            placeholder="order_created"
          />
        </Field>
        <Field id="wh-q" label="Email or id">
          <input
            id="wh-q"
            className="input"
            value={form.q}
            onChange={(e) => setForm({ ...form, q: e.target.value })}
            placeholder="buyer@example.com"
          />
        </Field>
        <div className="flex items-end">
          <button type="submit" className="btn-primary w-full">
            Filter
          </button>
        </div>
      </form>
      <PagedTable
        list={list}
        rows="deliveries"
        empty={<EmptyState title="No delivery matches" />}
        columns={[
          {
            header: "Event",
            cell: (d) => (
              <>
                <Link className="link" href={`/admin/webhooks/${d.id}`}>
                  {d.eventType}
                </Link>
                <div className="text-xs text-slate-500">
                  {d.source}
                  {d.objectId ? ` · ${d.objectId}` : ""}
                </div>
              </>
            ),
          },
          {
            header: "Status",
            cell: (d) => (
              <>
                <span className={STATUS_TONE[d.status] ?? ""}>{d.status}</span>
                {d.error ? <div className="max-w-xs text-xs text-red-700">{d.error}</div> : null}
              </>
            ),
          },
          { header: "Buyer / user", cellClass: () => "text-xs", cell: (d) => d.userEmail ?? d.userRef ?? "—" },
          { header: "Received", cell: (d) => formatDate(d.receivedAt, true) },
          { header: "Processed", cell: (d) => formatDate(d.processedAt, true) },
        ]}
      />
    </>
  );
}
