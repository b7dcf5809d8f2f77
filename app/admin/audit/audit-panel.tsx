"use client";

import Link from "next/link";
import { useState } from "react";
import type { AdminAudit } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader, Spinner } from "@/components/ui";
import { useApi } from "@/components/use-api";

const ACTIONS = ["credits.adjust", "user.lock", "user.unlock", "webhook.replay", "cron.run"];

function targetLink(type: string, id: string) {
  if (type === "user") return `/admin/users/${id}`;
  if (type === "webhook") return `/admin/webhooks/${id}`;
  return "/admin/cron";
}

/** Every operator write: who, what, on what, why, with the request id to find it in the logs. */
export function AuditPanel({ targetId }: { targetId: string }) {
  const [action, setAction] = useState("");
  const [cursor, setCursor] = useState<string | null>(null);
  const params = new URLSearchParams({ limit: "25" });
  if (action) params.set("action", action);
  if (targetId) params.set("targetId", targetId);
  if (cursor) params.set("cursor", cursor);
  const { data, error, loading } = useApi<AdminAudit>(`/api/admin/audit?${params}`);
  return (
    <>
      <PageHeader title="Audit log" description={targetId ? `Operator actions on ${targetId}.` : "Every operator action, newest first."} />
      <div className="mb-4 max-w-xs">
        <label htmlFor="audit-action" className="field-label">
          Action
        </label>
        <select
          id="audit-action"
          className="input"
          value={action}
          onChange={(e) => {
            setCursor(null);
            setAction(e.target.value);
          }}
        >
          <option value="">Any</option>
          {ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      {error ? <ErrorNotice error={error} /> : null}
      {loading && !data ? <Spinner /> : null}
      {data && data.actions.length === 0 ? <EmptyState title="No operator action yet" /> : null}
      {data && data.actions.length > 0 ? (
        <div className="card overflow-x-auto p-0">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">When</th>
                <th scope="col" className="px-4 py-2">Operator</th>
                <th scope="col" className="px-4 py-2">Action</th>
                <th scope="col" className="px-4 py-2">Target</th>
                <th scope="col" className="px-4 py-2">Reason</th>
                <th scope="col" className="px-4 py-2">Request</th>
              </tr>
            </thead>
            <tbody>
              {data.actions.map((a) => (
                <tr key={a.id} className="border-t border-slate-100 align-top">
                  <td className="px-4 py-2">{formatDate(a.createdAt, true)}</td>
                  <td className="px-4 py-2">{a.operator}</td>
                  <td className="px-4 py-2">{a.action}</td>
                  <td className="px-4 py-2">
                    <Link className="link" href={targetLink(a.targetType, a.targetId)}>
                      {a.targetType} {a.targetId.slice(0, 36)}
                    </Link>
                  </td>
                  <td className="px-4 py-2">{a.reason}</td>
                  <td className="px-4 py-2 text-xs text-slate-500">{a.requestId ?? "—"}</td>
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
