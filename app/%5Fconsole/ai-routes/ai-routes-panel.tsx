"use client";

import type { AdminAiRoutes } from "@/components/admin-types";
import { DataTable, type Column } from "@/components/data-table";
import { EmptyState, PageHeader } from "@/components/ui";
import { useApi } from "@/components/use-api";
import { LoadState, RefreshButton } from "@/components/paged-list";

const ms = (v: number | null) => (v === null ? "—" : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);
const pct = (v: number) => `${(v * 100).toFixed(v > 0 && v < 0.1 ? 1 : 0)} %`;

type RouteRow = { model: string; route: AdminAiRoutes["models"][number]["routes"][number]; i: number };

const ROUTE_COLUMNS: Column<RouteRow>[] = [
  { header: "Model", cell: (r) => (r.i === 0 ? <span className="font-medium">{r.model}</span> : null) },
  {
    header: "Route",
    cell: ({ model, route, i }) => (
      <>
        {i + 1}. {route.provider}
        {route.upstreamModel !== model ? <span className="text-xs text-slate-500"> as {route.upstreamModel}</span> : null}
        {route.model !== model ? <span className="text-xs text-slate-500"> (priced as {route.model})</span> : null}
      </>
    ),
  },
  { header: "Calls", align: "right", cell: (r) => r.route.stats.calls },
  {
    header: "Errors",
    align: "right",
    cell: (r) => (r.route.stats.calls ? pct(r.route.stats.errorRate) : "—"),
    cellClass: (r) => (r.route.stats.errorRate > 0.1 ? "font-medium text-red-700" : ""),
  },
  { header: "p50 / p95", align: "right", cell: (r) => `${ms(r.route.stats.p50Ms)} / ${ms(r.route.stats.p95Ms)}` },
  {
    header: "Last error",
    cell: (r) =>
      r.route.stats.lastError ? `${r.route.stats.lastError.message} (${new Date(r.route.stats.lastError.at).toLocaleTimeString()})` : "—",
    cellClass: () => "text-xs text-slate-600",
  },
];

type LimitRow = AdminAiRoutes["pricing"]["flatLimits"][number];

const num = (v: number) => v.toLocaleString("en-US");

/** What one flat-priced call may be at most, in words. */
function limitText(l: LimitRow): string {
  if (l.largestImage !== undefined) return `images up to ${l.largestImage}`;
  if (l.maxMinutes !== undefined) return `recordings up to ${l.maxMinutes} minutes`;
  const input = `${num(l.maxInputTokens ?? 0)} ${l.inputUnit === "bytes" ? "bytes of text" : "tokens"} of input`;
  return l.maxOutputTokens !== undefined ? `${input}, or ${num(l.maxOutputTokens)} output tokens after a short prompt` : input;
}

const LIMIT_COLUMNS: Column<LimitRow>[] = [
  { header: "Model", cell: (l) => <span className="font-medium">{l.model}</span> },
  { header: "Call", cell: (l) => l.operation },
  { header: "Credits", align: "right", cell: (l) => l.credits },
  { header: "Upstream budget", align: "right", cell: (l) => `$${l.budgetUsd.toFixed(4)}` },
  { header: "Largest call accepted", cell: limitText },
];

/** Which providers serve each model, in fallback order, and how each route did lately (GET /api/admin/ai/routes). */
export function AiRoutesPanel() {
  const { data, error, loading, reload } = useApi<AdminAiRoutes>("/api/admin/ai/routes");
  return (
    <>
      <PageHeader
        title="AI routes"
        description={
          data
            ? `Calls go to a model's routes in order; the next is tried on a connection error, timeout, 429 or 5xx before any text reached the client. Recent figures are this instance's (${data.instance}), over the last ${data.models[0]?.routes[0]?.stats.windowMinutes ?? 15} minutes.`
            : "Which providers serve each model."
        }
        actions={<RefreshButton onRefresh={reload} />}
      />
      <LoadState error={error} loading={loading && !data} />
      {data ? (
        <>
          <section className="card mb-4 text-sm" aria-labelledby="routes-providers">
            <h2 id="routes-providers">Providers</h2>
            {data.offline ? (
              <p className="mt-2 text-amber-700">Offline: every model is answered by the offline provider (labelled answers).</p>
            ) : null}
            <ul className="mt-2 space-y-1">
              {data.providers.map((p) => (
                <li key={p.name}>
                  <span className="font-medium">{p.name}</span>{" "}
                  <span className="text-slate-500">
                    ({p.type}
                    {p.host ? `, ${p.host}` : ""})
                  </span>
                </li>
              ))}
            </ul>
            <p className="mt-2 text-slate-600">
              Deadline {data.timeoutMs.toLocaleString("en-US")} ms per call;{" "}
              {data.routeTimeoutMs
                ? `${data.routeTimeoutMs.toLocaleString("en-US")} ms for a route to start answering`
                : "a route may use the whole deadline"}
              ; {data.attempts ? `at most ${data.attempts} attempts` : "one attempt per route"}.
            </p>
          </section>
          {data.pricing.mode === "flat" && data.pricing.flatLimits.length > 0 ? (
            <div className="mb-4">
              <DataTable
                label="Flat price limits"
                caption={`Flat prices: the largest call each accepts, keeping ${Math.round(data.pricing.flatMargin * 100)} % of its credits' worth as a margin (AI_FLAT_MARGIN)`}
                testId="flat-limits"
                rows={data.pricing.flatLimits}
                rowKey={(l) => `${l.model}-${l.operation}`}
                columns={LIMIT_COLUMNS}
              />
            </div>
          ) : null}
          {data.models.length === 0 ? <EmptyState title="No model has a route" /> : null}
          {data.models.length > 0 ? (
            <DataTable
              label="Routes per model"
              testId="ai-routes"
              rows={data.models.flatMap((m) => m.routes.map((route, i) => ({ model: m.model, route, i })))}
              rowKey={(r) => `${r.model}-${r.route.provider}-${r.i}`}
              columns={ROUTE_COLUMNS}
            />
          ) : null}
        </>
      ) : null}
    </>
  );
}
