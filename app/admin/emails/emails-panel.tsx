"use client";

import { useState } from "react";
import type { AdminEmails } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader, Spinner } from "@/components/ui";
import { useApi } from "@/components/use-api";

const STATUSES = ["queued", "sent", "delivered", "bounced", "complained", "failed"];

/** The email log with each message's delivery events. */
export function EmailsPanel() {
  const [status, setStatus] = useState("");
  const [cursor, setCursor] = useState<string | null>(null);
  const { data, error, loading } = useApi<AdminEmails>(`/api/admin/emails?limit=25${status ? `&status=${status}` : ""}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
  return (
    <>
      <PageHeader title="Emails" description="Every email the service sent, with the delivery events its provider reported." />
      <div className="mb-4 max-w-xs">
        <label htmlFor="email-status" className="field-label">
          Status
        </label>
        <select
          id="email-status"
          className="input"
          value={status}
          onChange={(e) => {
            setCursor(null);
            setStatus(e.target.value);
          }}
        >
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      {error ? <ErrorNotice error={error} /> : null}
      {loading && !data ? <Spinner /> : null}
      {data && data.emails.length === 0 ? <EmptyState title="No email matches" /> : null}
      {data && data.emails.length > 0 ? (
        <div className="card overflow-x-auto p-0">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">Sent</th>
                <th scope="col" className="px-4 py-2">To / subject</th>
                <th scope="col" className="px-4 py-2">Type</th>
                <th scope="col" className="px-4 py-2">Status</th>
                <th scope="col" className="px-4 py-2">Events</th>
              </tr>
            </thead>
            <tbody>
              {data.emails.map((e) => (
                <tr key={e.id} className="border-t border-slate-100 align-top">
                  <td className="px-4 py-2">{formatDate(e.createdAt, true)}</td>
                  <td className="px-4 py-2">
                    {e.to}
                    <div className="text-xs text-slate-500">{e.subject}</div>
                  </td>
                  <td className="px-4 py-2">{e.type}</td>
                  <td className={`px-4 py-2 ${e.status === "failed" || e.status === "bounced" || e.status === "complained" ? "font-medium text-red-700" : ""}`}>
                    {e.status}
                    {e.error ? <div className="text-xs text-red-700">{e.error}</div> : null}
                  </td>
                  <td className="px-4 py-2 text-xs">
                    {e.events.length === 0 ? "—" : e.events.map((ev, i) => <div key={i}>{`${ev.eventType} · ${formatDate(ev.occurredAt ?? ev.receivedAt, true)}`}</div>)}
                  </td>
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
