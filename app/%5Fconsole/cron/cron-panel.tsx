"use client";

import { ConfirmForm } from "@/components/admin/confirm-form";
import type { AdminCron, AdminCronRun } from "@/components/admin-types";
import { apiJson, formatDate } from "@/components/api";
import { DataTable, type Column } from "@/components/data-table";
import { EmptyState } from "@/components/ui";
import { ResourcePage } from "@/components/paged-list";

function resultText(result: unknown): string {
  if (result && typeof result === "object" && "message" in result) return String((result as { message: unknown }).message);
  return result ? JSON.stringify(result) : "";
}

type CronRunRow = AdminCron["jobs"][number]["runs"][number];

const RUN_COLUMNS: Column<CronRunRow>[] = [
  { header: "Started", cell: (run) => formatDate(run.startedAt, true) },
  { header: "Status", cell: (run) => run.status, cellClass: (run) => (run.status === "failed" ? "font-medium text-red-700" : "") },
  { header: "Result", cell: (run) => run.error ?? resultText(run.result), cellClass: () => "text-slate-600" },
];

/** The scheduled jobs, their recent runs, and "run now" under the same lock as the scheduler. */
export function CronPanel() {
  return (
    <ResourcePage<AdminCron>
      path="/api/admin/cron"
      title="Scheduled jobs"
      description="The daily maintenance jobs: when they run, their last runs, and a way to run one now (it never runs twice at once)."
    >
      {(data, reload) => (
        <div className="space-y-4">
          {data.jobs.map((job) => (
            <section key={job.job} className="card grid gap-4 lg:grid-cols-3" aria-labelledby={`job-${job.job}`}>
              <div className="lg:col-span-2 overflow-x-auto">
                <h2 id={`job-${job.job}`}>{job.job}</h2>
                <p className="text-sm text-slate-600">
                  <code>{job.schedule}</code> (UTC) ·{" "}
                  {job.active ? "applies under the current configuration" : "inactive under the current configuration"}
                  {job.lockedUntil ? ` · running (lock until ${formatDate(job.lockedUntil, true)})` : ""}
                </p>
                {job.runs.length === 0 ? (
                  <EmptyState title="No runs yet" />
                ) : (
                  <DataTable inline label={`Last runs of ${job.job}`} rows={job.runs} rowKey={(run) => run.id} columns={RUN_COLUMNS} />
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
      )}
    </ResourcePage>
  );
}
