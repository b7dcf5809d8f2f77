"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { AdminDeliveries } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { ListFilter, SubmitButton, TextField } from "@/components/form-field";
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
const SOURCES = ["payment", "identity", "email"];
const STATUSES = ["failed", "pending", "processed", "ignored", "received"];

export function WebhooksPanel({ initial }: { initial: Filters }) {
  const [form, setForm] = useState<Filters>(initial);
  const set = (field: keyof typeof form) => (value: string) => setForm({ ...form, [field]: value });
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
        <ListFilter id="wh-source" label="Source" className="" value={form.source} onChange={set("source")} options={SOURCES} />
        <ListFilter id="wh-status" label="Status" className="" value={form.status} onChange={set("status")} options={STATUSES} />
        <TextField id="wh-type" label="Event type" value={form.type} onChange={set("type")} placeholder="order_created" />
        <TextField id="wh-q" label="Email or id" value={form.q} onChange={set("q")} placeholder="buyer@example.com" />
        <SubmitButton pending={false} pendingLabel="" className="btn-primary mt-auto w-full self-end">
          Filter
        </SubmitButton>
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
