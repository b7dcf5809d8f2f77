"use client";

import Link from "next/link";
import { useState } from "react";
import { ConfirmForm } from "@/components/admin/confirm-form";
import type { AdminOutbound } from "@/components/admin-types";
import { apiJson, formatDate } from "@/components/api";
import { PagedTable, useCursorList } from "@/components/paged-list";
import { EmptyState, PageHeader } from "@/components/ui";
import { ListFilter } from "@/components/form-field";

/** Every outbound webhook delivery and alert email: its target, status, attempts and last answer; replay one (audited). */
export function OutboundPanel() {
  const [status, setStatus] = useState("");
  const [replaying, setReplaying] = useState<string | null>(null);
  const list = useCursorList<AdminOutbound>("/api/admin/outbound", { status: status || null });
  return (
    <>
      <PageHeader
        title="Outbound webhooks"
        description="Deliveries of account events to their webhook endpoints, and alert emails: retried with backoff for 24 hours, in order per endpoint."
      />
      <ListFilter id="outbound-status" label="Status" value={status} onChange={setStatus} options={["pending", "delivered", "failed"]} />
      <PagedTable
        list={list}
        rows="deliveries"
        empty={<EmptyState title="No deliveries" />}
        columns={[
          { header: "Event", cell: (d) => d.type },
          {
            header: "Account",
            cell: (d) => (
              <Link className="link" href={`/admin/users/${d.accountId}`}>
                {d.accountId.slice(0, 8)}…
              </Link>
            ),
          },
          { header: "Target", cell: (d) => <span className="break-all">{d.target}</span> },
          { header: "Status", cell: (d) => d.status },
          { header: "Attempts", align: "right", cell: (d) => d.attempts },
          { header: "Last answer", cell: (d) => d.lastError ?? (d.lastStatus ? String(d.lastStatus) : "—") },
          { header: "Created", cell: (d) => formatDate(d.createdAt, true) },
          {
            header: "",
            cell: (d) =>
              d.status === "pending" ? null : replaying === d.id ? (
                <ConfirmForm
                  title="Replay this delivery"
                  summary={`Send ${d.type} to ${d.target} again.`}
                  confirmLabel="Confirm replay"
                  run={async (reason) => {
                    await apiJson(`/api/admin/outbound/${d.id}/replay`, { method: "POST", json: { reason } });
                    return "Queued: it goes out as soon as its endpoint's queue reaches it.";
                  }}
                  onDone={async () => {
                    setReplaying(null);
                    await list.reload();
                  }}
                />
              ) : (
                <button type="button" className="btn-secondary" onClick={() => setReplaying(d.id)}>
                  Replay
                </button>
              ),
          },
        ]}
      />
    </>
  );
}
