"use client";

import Link from "next/link";
import { useState } from "react";
import type { AdminUsage } from "@/components/admin-types";
import { DataTable } from "@/components/data-table";
import { EmptyState, PageHeader, Stat } from "@/components/ui";
import { useApi } from "@/components/use-api";
import { SelectField } from "@/components/form-field";
import { LoadState } from "@/components/paged-list";

const n = (v: number) => v.toLocaleString("en-US");
const usd = (v: number) =>
  `$${v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: v !== 0 && Math.abs(v) < 1 ? 4 : 2 })}`;
const day = (d: Date) => d.toISOString().slice(0, 10);
const PERIODS: { label: string; days: number }[] = [
  { label: "Last 7 days", days: 7 },
  { label: "Last 30 days", days: 30 },
  { label: "Last 90 days", days: 90 },
];

/** AI usage, provider cost and margin over a period, per model and per user (GET /api/admin/usage). */
export function UsagePanel({ userId }: { userId: string }) {
  const [days, setDays] = useState(30);
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 24 * 3600_000);
  const params = new URLSearchParams({ from: day(from), to: day(to) });
  if (userId) params.set("userId", userId);
  const { data, error, loading } = useApi<AdminUsage>(`/api/admin/usage?${params}`);
  return (
    <>
      <PageHeader
        title="AI usage"
        description={`${userId ? "One user's" : "All"} AI calls: what they cost upstream, the credits charged for them at $${data ? data.creditValueUsd.toPrecision(4) : "…"} a credit, and the margin.`}
      />
      <SelectField
        id="usage-period"
        label="Period (UTC)"
        className="mb-4 max-w-xs"
        value={String(days)}
        onChange={(v) => setDays(Number(v))}
        options={PERIODS.map((p) => ({ value: String(p.days), label: p.label }))}
      />
      <LoadState error={error} loading={loading && !data} />
      {data ? (
        <>
          <section className="card mb-4" aria-labelledby="usage-totals">
            <h2 id="usage-totals">
              {data.from} to {data.to}
            </h2>
            <dl className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-4 lg:grid-cols-7">
              <Stat label="Calls" value={n(data.totals.calls)} />
              <Stat label="Credits charged" value={n(data.totals.credits)} />
              <Stat label="Credits' value" value={usd(data.totals.soldUsd)} />
              <Stat label="Provider cost" value={usd(data.totals.costUsd)} />
              <Stat label="Margin" value={usd(data.totals.marginUsd)} />
              <Stat label="Credits not collected" value={n(data.totals.uncollectedCredits)} />
              <Stat label="Calls below cost" value={n(data.totals.belowCostCalls)} />
            </dl>
            {data.totals.uncollectedCredits > 0 || data.totals.belowCostCalls > 0 ? (
              <p className="mt-3 text-sm text-red-700" role="alert">
                Some calls were charged less than they cost upstream: a quote was not the upper bound it must be. The calls&apos; ledger
                rows name the model and usage.
              </p>
            ) : null}
          </section>
          {data.byModel.length === 0 ? <EmptyState title="No AI call in this period" /> : null}
          {data.byModel.length > 0 ? (
            <UsageTable title="Per model" rows={data.byModel.map((m) => ({ key: m.model, label: m.model, ...m }))} />
          ) : null}
          {data.byUser.length > 0 && !userId ? (
            <UsageTable
              title="Per user (the 50 who cost the most)"
              rows={data.byUser.map((u) => ({ key: u.userId, label: u.email ?? u.userId, href: `/admin/users/${u.userId}`, ...u }))}
            />
          ) : null}
        </>
      ) : null}
    </>
  );
}

interface UsageRow {
  key: string;
  label: string;
  href?: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  credits: number;
  costUsd: number;
  soldUsd: number;
  marginUsd: number;
}

function UsageTable({ title, rows }: { title: string; rows: UsageRow[] }) {
  const right = "right" as const;
  return (
    <section className="mb-4" aria-label={title}>
      <h2 className="mb-2">{title}</h2>
      <DataTable
        rows={rows}
        rowKey={(r) => r.key}
        columns={[
          {
            header: "",
            cell: (r) =>
              r.href ? (
                <Link className="link" href={r.href}>
                  {r.label}
                </Link>
              ) : (
                r.label
              ),
          },
          { header: "Calls", align: right, cell: (r) => n(r.calls) },
          { header: "Input tokens", align: right, cell: (r) => n(r.promptTokens) },
          { header: "Output tokens", align: right, cell: (r) => n(r.completionTokens) },
          { header: "Credits", align: right, cell: (r) => n(r.credits) },
          { header: "Value", align: right, cell: (r) => usd(r.soldUsd) },
          { header: "Provider cost", align: right, cell: (r) => usd(r.costUsd) },
          {
            header: "Margin",
            align: right,
            cell: (r) => usd(r.marginUsd),
            cellClass: (r) => (r.marginUsd < 0 ? "font-medium text-red-700" : ""),
          },
        ]}
      />
    </section>
  );
}
