"use client";

import Link from "next/link";
import { useState } from "react";
import type { AdminAudit } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { ListFilter } from "@/components/form-field";
import { PagedTable, useCursorList } from "@/components/paged-list";
import { EmptyState, PageHeader } from "@/components/ui";

const ACTIONS = ["credits.adjust", "user.lock", "user.unlock", "user.identity.unlink", "user.api_key.revoke", "webhook.replay", "cron.run"];

function targetLink(type: string, id: string) {
  if (type === "user") return `/admin/users/${id}`;
  if (type === "webhook") return `/admin/webhooks/${id}`;
  return "/admin/cron";
}

/** Every operator write: who, what, on what, why, with the request id to find it in the logs. */
export function AuditPanel({ targetId }: { targetId: string }) {
  const [action, setAction] = useState("");
  const list = useCursorList<AdminAudit>("/api/admin/audit", { action, targetId });
  return (
    <>
      <PageHeader title="Audit log" description={targetId ? `Operator actions on ${targetId}.` : "Every operator action, newest first."} />
      <ListFilter id="audit-action" label="Action" value={action} onChange={setAction} options={ACTIONS} />
      <PagedTable
        list={list}
        rows="actions"
        empty={<EmptyState title="No operator action yet" />}
        columns={[
          { header: "When", cell: (a) => formatDate(a.createdAt, true) },
          { header: "Operator", cell: (a) => a.operator },
          { header: "Action", cell: (a) => a.action },
          {
            header: "Target",
            cell: (a) => (
              <Link className="link" href={targetLink(a.targetType, a.targetId)}>
                {a.targetType} {a.targetId.slice(0, 36)}
              </Link>
            ),
          },
          { header: "Reason", cell: (a) => a.reason },
          { header: "Request", cell: (a) => a.requestId ?? "—", cellClass: () => "text-xs text-slate-500" },
        ]}
      />
    </>
  );
}
