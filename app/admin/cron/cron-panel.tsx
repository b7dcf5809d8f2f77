"use client";

import { ConfirmForm } from "@/components/admin/confirm-form";
import type { AdminCron, AdminCronRun } from "@/components/admin-types";
import { apiJson, formatDate } from "@/components/api";
import { EmptyState, PageHeader } from "@/components/ui";
import { useApi } from "@/components/use-api";
import { LoadState } from "@/components/paged-list";

function resultText(result: unknown): string {
  if (result && typeof result === "object" && "message" in result) return String((result as { message: unknown }).message);
  return result ? JSON.stringify(result) : "";
}

/** The scheduled jobs, their recent runs, and "run now" under the same lock as the scheduler. */
export function CronPanel() {
  const { data, error, loading, reload } = useApi<AdminCron>("/api/admin/cron");
  return (
    <>
      <PageHeader title="Scheduled jobs" description="The daily maintenance jobs: when they run, their last runs, and a way to run one now (it never runs twice at once)." />
      <LoadState error={error} loading={loading && !data} />
      <div className="space-y-4">
        {data?.jobs.map((job) => (
          <section key={job.job} className="card grid gap-4 lg:grid-cols-3" aria-labelledby={`job-${job.job}`}>
            <div className="lg:col-span-2 overflow-x-auto">
              <h2 id={`job-${job.job}`}>{job.job}</h2>
              <p className="text-sm text-slate-600">
                <code>{job.schedule}</code> (UTC) · {job.active ? "applies under the current configuration" : "inactive under the current configuration"}
                {job.lockedUntil ? ` · running (lock until ${formatDate(job.lockedUntil, true)})` : ""}
              </p>
              {job.runs.length === 0 ? (
                <EmptyState title="No runs yet" />
              ) : (
                <table className="mt-3 w-full text-sm">
                  <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
                    <tr>
                      <th scope="col" className="px-2 py-1">Started</th>
                      <th scope="col" className="px-2 py-1">Status</th>
                      <th scope="col" className="px-2 py-1">Result</th>
                    </tr>
                  </thead>
                  <tbody>
                    {job.runs.map((run) => (
                      <tr key={run.id} className="border-t border-slate-100 align-top">
                        <td className="px-2 py-1.5">{formatDate(run.startedAt, true)}</td>
                        <td className={`py-1.5 ${run.status === "failed" ? "font-medium text-red-700" : ""}`}>{run.status}</td>
                        <td className="px-2 py-1.5 text-slate-600">{run.error ?? resultText(run.result)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
            <ConfirmForm
              title={`Run ${job.job} now`}
              summary={`Run ${job.job} now, as the scheduler would (with its daily housekeeping).`}
              confirmLabel="Confirm run"
              run={async (reason) => {
                const r = await apiJson<AdminCronRun>(`/api/admin/cron/${job.job}/run`, { method: "POST", json: { reason } });
                return `${r.success ? "Done" : "Not run"}: ${r.message}`;
              }}
              onDone={reload}
            />
          </section>
        ))}
      </div>
    </>
  );
}
