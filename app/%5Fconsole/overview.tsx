"use client";

import Link from "next/link";
import type { AdminSummary } from "@/components/admin-types";
import { DataTable } from "@/components/data-table";
import { formatDate } from "@/components/api";
import { Stat } from "@/components/ui";
import { ResourcePage } from "@/components/paged-list";

const n = (v: number) => v.toLocaleString("en-US");

/** What an operator looks at first (GET /api/admin/metrics/summary). */
export function AdminOverview() {
  return (
    <ResourcePage<AdminSummary>
      path="/api/admin/metrics/summary"
      title="Overview"
      description="Users, subscriptions and credits from the database; failures that need a look link to their lists."
      refreshable
    >
      {(data) => (
        <div className="grid gap-4 md:grid-cols-2">
          <section className="card" aria-labelledby="ov-users">
            <h2 id="ov-users">Users</h2>
            <dl className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-3">
              <Stat label="Total" value={n(data.users.total)} />
              <Stat label="Locked" value={n(data.users.locked)} />
              {Object.entries(data.users.byTier).map(([tier, count]) => (
                <Stat key={tier} label={tier} value={n(count)} />
              ))}
            </dl>
          </section>
          <section className="card" aria-labelledby="ov-subs">
            <h2 id="ov-subs">Subscriptions</h2>
            <dl className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-3">
              <Stat
                label="Live"
                value={n(data.subscriptions.active)}
                hint="active, trial, past due, paused, cancelled until the period ends"
              />
              {Object.entries(data.subscriptions.byStatus).map(([status, count]) => (
                <Stat key={status} label={status.replace("_", " ")} value={n(count)} />
              ))}
            </dl>
          </section>
          <section className="card" aria-labelledby="ov-credits">
            <h2 id="ov-credits">Credits</h2>
            <DataTable
              inline
              label="Credits by period (UTC)"
              rows={(["today", "month"] as const).map((p) => ({ period: p, ...data.credits[p] }))}
              rowKey={(r) => r.period}
              columns={[
                { header: "Period (UTC)", cell: (r) => (r.period === "today" ? "Today" : "This month"), cellClass: () => "font-medium" },
                { header: "Granted", align: "right", cell: (r) => n(r.granted) },
                { header: "Used", align: "right", cell: (r) => n(r.used) },
                { header: "Refunded", align: "right", cell: (r) => n(r.refunded) },
              ]}
            />
          </section>
          <section className="card" aria-labelledby="ov-attention">
            <h2 id="ov-attention">Needs attention</h2>
            <ul className="mt-3 space-y-2 text-sm">
              <li>
                <Link className="link" href="/admin/webhooks?status=failed">
                  {n(data.webhooks.failedLast24h)} failed webhook deliveries
                </Link>{" "}
                in the last 24 hours
              </li>
              <li>
                <Link className="link" href="/admin/webhooks?status=pending">
                  {n(data.webhooks.pending)} pending deliveries
                </Link>{" "}
                (waiting for their user or subscription)
              </li>
              <li>
                <Link className="link" href="/admin/cron">
                  {n(data.cron.failedLast24h)} failed cron runs
                </Link>{" "}
                in the last 24 hours ({n(data.cron.failedLast7d)} in 7 days)
              </li>
              <li>
                <Link
                  className={data.emails.signInFailedLast24h ? "link font-medium text-red-700" : "link"}
                  href="/admin/emails?status=failed"
                >
                  {n(data.emails.failedLast24h)} failed emails
                </Link>{" "}
                in the last 24 hours, {n(data.emails.signInFailedLast24h)} of them sign-in links (people who could not sign in)
                {data.emails.lastFailure ? <p className="mt-1 text-xs text-slate-600">Latest: {data.emails.lastFailure.error}</p> : null}
              </li>
            </ul>
            <p className="mt-3 text-xs text-slate-500">As of {formatDate(data.generatedAt, true)}</p>
          </section>
        </div>
      )}
    </ResourcePage>
  );
}
