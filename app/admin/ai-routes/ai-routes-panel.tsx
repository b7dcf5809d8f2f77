"use client";

import type { AdminAiRoutes } from "@/components/admin-types";
import { EmptyState, PageHeader } from "@/components/ui";
import { useApi } from "@/components/use-api";
import { LoadState, RefreshButton } from "@/components/paged-list";

const ms = (v: number | null) => (v === null ? "—" : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);
const pct = (v: number) => `${(v * 100).toFixed(v > 0 && v < 0.1 ? 1 : 0)} %`;

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
            {data.offline ? <p className="mt-2 text-amber-700">Offline: every model is answered by the offline provider (labelled answers).</p> : null}
            <ul className="mt-2 space-y-1">
              {data.providers.map((p) => (
                <li key={p.name}>
                  <span className="font-medium">{p.name}</span> <span className="text-slate-500">({p.type}{p.host ? `, ${p.host}` : ""})</span>
                </li>
              ))}
            </ul>
            <p className="mt-2 text-slate-600">
              Deadline {data.timeoutMs.toLocaleString("en-US")} ms per call; {data.routeTimeoutMs ? `${data.routeTimeoutMs.toLocaleString("en-US")} ms for a route to start answering` : "a route may use the whole deadline"};{" "}
              {data.attempts ? `at most ${data.attempts} attempts` : "one attempt per route"}.
            </p>
          </section>
          {data.models.length === 0 ? <EmptyState title="No model has a route" /> : null}
          {data.models.length > 0 ? (
            <section className="card overflow-x-auto p-0" aria-label="Routes per model">
              <table className="w-full text-sm">
                <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
                  <tr>
                    <th scope="col" className="px-4 py-2">Model</th>
                    <th scope="col" className="px-4 py-2">Route</th>
                    <th scope="col" className="px-4 py-2 text-right">Calls</th>
                    <th scope="col" className="px-4 py-2 text-right">Errors</th>
                    <th scope="col" className="px-4 py-2 text-right">p50 / p95</th>
                    <th scope="col" className="px-4 py-2">Last error</th>
                  </tr>
                </thead>
                <tbody>
                  {data.models.flatMap((m) =>
                    m.routes.map((r, i) => (
                      <tr key={`${m.model}-${r.provider}-${i}`} className="border-t border-slate-100 align-top">
                        <td className="px-4 py-2">{i === 0 ? <span className="font-medium">{m.model}</span> : null}</td>
                        <td className="px-4 py-2">
                          {i + 1}. {r.provider}
                          {r.upstreamModel !== m.model ? <span className="text-xs text-slate-500"> as {r.upstreamModel}</span> : null}
                          {r.model !== m.model ? <span className="text-xs text-slate-500"> (priced as {r.model})</span> : null}
                        </td>
                        <td className="px-4 py-2 text-right">{r.stats.calls}</td>
                        <td className={`px-4 py-2 text-right ${r.stats.errorRate > 0.1 ? "font-medium text-red-700" : ""}`}>{r.stats.calls ? pct(r.stats.errorRate) : "—"}</td>
                        <td className="px-4 py-2 text-right">
                          {ms(r.stats.p50Ms)} / {ms(r.stats.p95Ms)}
                        </td>
                        <td className="px-4 py-2 text-xs text-slate-600">{r.stats.lastError ? `${r.stats.lastError.message} (${new Date(r.stats.lastError.at).toLocaleTimeString()})` : "—"}</td>
                      </tr>
                    )),
                  )}
                </tbody>
              </table>
            </section>
          ) : null}
        </>
      ) : null}
    </>
  );
}
