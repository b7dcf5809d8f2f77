"use client";

import { useState } from "react";
import type { AdminEmails } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { ListFilter } from "@/components/form-field";
import { PagedTable, useCursorList } from "@/components/paged-list";
import { EmptyState, PageHeader } from "@/components/ui";

const STATUSES = ["queued", "sent", "delivered", "bounced", "complained", "failed"];
const FAILED = new Set(["failed", "bounced", "complained"]);

/** The email log with each message's delivery events. */
export function EmailsPanel({ initialStatus = "" }: { initialStatus?: string }) {
  const [status, setStatus] = useState(STATUSES.includes(initialStatus) ? initialStatus : "");
  const list = useCursorList<AdminEmails>("/api/admin/emails", { status });
  return (
    <>
      <PageHeader title="Emails" description="Every email the service sent, with the delivery events its provider reported." />
      <ListFilter id="email-status" label="Status" value={status} onChange={setStatus} options={STATUSES} />
      <PagedTable
        list={list}
        rows="emails"
        empty={<EmptyState title="No email matches" />}
        columns={[
          { header: "Sent", cell: (e) => formatDate(e.createdAt, true) },
          {
            header: "To / subject",
            cell: (e) => (
              <>
                {e.to}
                <div className="text-xs text-slate-500">{e.subject}</div>
              </>
            ),
          },
          { header: "Type", cell: (e) => e.type },
          {
            header: "Status",
            cellClass: (e) => (FAILED.has(e.status) ? "font-medium text-red-700" : ""),
            cell: (e) => (
              <>
                {e.status}
                {e.error ? <div className="text-xs text-red-700">{e.error}</div> : null}
              </>
            ),
          },
          {
            header: "Events",
            cellClass: () => "text-xs",
            cell: (e) =>
              e.events.length === 0
                ? "—"
                : e.events.map((ev, i) => <div key={i}>{`${ev.eventType} · ${formatDate(ev.occurredAt ?? ev.receivedAt, true)}`}</div>),
          },
        ]}
      />
    </>
  );
}
