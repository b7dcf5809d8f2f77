"use client";

import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { UsageReport } from "./types";
import { countOf } from "./api";
import { ErrorNotice } from "./error-notice";
import { Spinner } from "./ui";
import { useApi } from "./use-api";

const COLORS = ["#4f46e5", "#0891b2", "#16a34a", "#ca8a04", "#dc2626", "#9333ea", "#0f766e", "#be185d"];
const n = (value: number) => value.toLocaleString("en-US");

/** Every day of the report's period up to today, each with its credits per series (a stacked bar per day). */
function byDay(report: UsageReport): { days: Array<Record<string, number | string>>; series: string[] } {
  const series = [...new Set(report.rows.map((r) => r.stackLabel ?? "other"))];
  const days = new Map<string, Record<string, number | string>>();
  const end = Math.min(new Date(report.to).getTime(), Date.now());
  for (let t = new Date(report.from).getTime(); t < end; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.set(day, { day, total: 0 });
  }
  for (const r of report.rows) {
    const day = r.group ?? "";
    const entry = days.get(day) ?? { day, total: 0 };
    const name = r.stackLabel ?? "other";
    entry[name] = ((entry[name] as number | undefined) ?? 0) + r.credits;
    entry.total = (entry.total as number) + r.credits;
    days.set(day, entry);
  }
  return { days: [...days.values()].sort((a, b) => String(a.day).localeCompare(String(b.day))), series };
}

/**
 * Credits by day this month, stacked by model or by API key (GET /api/usage), with the cycle's
 * projection against the allocation. The same figures are in a table under the chart (screen readers,
 * and what the browser test reads).
 */
export function UsageChart() {
  const [stack, setStack] = useState<"model" | "key">("model");
  const { data, error } = useApi<UsageReport>(`/api/usage?group_by=day&stack=${stack}&limit=5000`);
  const chart = data ? byDay(data) : null;
  const p = data?.projection;
  return (
    <section className="card mt-6" aria-labelledby="usage-chart-heading">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="usage-chart-heading">Credits by day</h2>
        <label className="flex items-center gap-2 text-sm text-slate-600">
          Stacked by
          <select className="input py-1" value={stack} onChange={(e) => setStack(e.target.value as "model" | "key")} aria-label="Stack by">
            <option value="model">model</option>
            <option value="key">API key</option>
          </select>
        </label>
      </div>
      <ErrorNotice error={error} />
      {!data || !chart ? (
        !error ? (
          <Spinner label="Loading usage" />
        ) : null
      ) : (
        <>
          <p className="mt-2 text-sm text-slate-600" data-testid="usage-chart-total">
            {n(data.total.credits)} credits in {countOf(data.total.calls, "call")} this month
            {p && p.allocation > 0 ? (
              <>
                {" "}
                · this cycle {n(p.spent)} of {n(p.allocation)}
                {p.projected !== null ? (
                  <>
                    ; at this pace <span data-testid="usage-projection">{n(p.projected)}</span> by {p.cycleEnd.slice(0, 10)}
                    {p.projected > p.allocation ? <span className="font-medium text-amber-700"> (more than your allocation)</span> : null}
                  </>
                ) : null}
              </>
            ) : null}
          </p>
          <div className="mt-3 h-64" data-testid="usage-chart">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={chart.days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="day" tickFormatter={(d: string) => d.slice(8)} fontSize={12} />
                <YAxis fontSize={12} width={48} />
                <Tooltip />
                <Legend />
                {chart.series.map((s, i) => (
                  <Bar key={s} dataKey={s} stackId="credits" fill={COLORS[i % COLORS.length]} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
          <table className="sr-only" data-testid="usage-chart-table">
            <caption>Credits by day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {chart.series.map((s) => (
                  <th key={s} scope="col">
                    {s}
                  </th>
                ))}
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {chart.days
                .filter((d) => (d.total as number) > 0)
                .map((d) => (
                  <tr key={String(d.day)}>
                    <th scope="row">{String(d.day)}</th>
                    {chart.series.map((s) => (
                      <td key={s}>{Number(d[s] ?? 0)}</td>
                    ))}
                    <td>{Number(d.total)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
