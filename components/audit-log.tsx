"use client";

import { useState } from "react";
import { apiJson, formatDate, toApiError, type ApiError } from "./api";
import { DataTable, type Column } from "./data-table";
import { ErrorNotice } from "./error-notice";
import { Field } from "./form-field";
import { Pending } from "./paged-list";
import type { OrganisationAudit } from "./types";
import { Card, EmptyState } from "./ui";
import { useApi } from "./use-api";

type AuditEvent = OrganisationAudit["events"][number];

const FAMILIES = [
  ["", "Everything"],
  ["member", "Members"],
  ["invite", "Invitations"],
  ["key", "Keys"],
  ["wallet", "Wallet"],
  ["organisation", "Organisation"],
  ["ownership", "Ownership"],
] as const;

/** A change's details in one line: `field: from → to` for changes, `name: value` for the rest. */
function describe(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([k, v]) => {
      if (v && typeof v === "object" && "from" in v && "to" in v) {
        const c = v as { from: unknown; to: unknown };
        return `${k}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`;
      }
      return `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`;
    })
    .join("; ");
}

const COLUMNS: Column<AuditEvent>[] = [
  { header: "When", cell: (e) => formatDate(e.createdAt, true) },
  { header: "Action", cell: (e) => <code>{e.action}</code> },
  { header: "By", cell: (e) => e.actor?.email ?? e.actor?.id ?? "the site" },
  { header: "Details", cell: (e) => <span className="break-all text-xs">{describe(e.details)}</span> },
];

/**
 * An organisation's audit log (GET /api/orgs/{id}/audit for its owner and admins, or the operator's
 * GET /api/admin/organisations/{id}/audit): newest first, a family filter, "Show more" pages and a
 * CSV link for the filtered log's first page.
 */
export function AuditLog({ base }: { base: string }) {
  const [family, setFamily] = useState("");
  const query = family ? `?action=${family}` : "";
  const first = useApi<OrganisationAudit>(`${base}${query}`);
  const [more, setMore] = useState<{ key: string; events: AuditEvent[]; cursor: string | null } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const extra = more?.key === query ? more : null;
  const events = [...(first.data?.events ?? []), ...(extra?.events ?? [])];
  const cursor = extra ? extra.cursor : (first.data?.nextCursor ?? null);
  // The first page's error shows here once there is data to keep showing; before that, Pending says it.
  const shownError = error ?? (first.data ? first.error : null);
  async function showMore() {
    if (!cursor) return;
    setError(null);
    try {
      const page = await apiJson<OrganisationAudit>(`${base}?${new URLSearchParams({ ...(family ? { action: family } : {}), cursor })}`);
      setMore({ key: query, events: [...(extra?.events ?? []), ...page.events], cursor: page.nextCursor });
    } catch (e) {
      setError(toApiError(e));
    }
  }
  return (
    <Card id="audit-log" title="Audit log" className="mt-4 overflow-x-auto">
      <p className="mt-1 text-sm text-slate-600">
        Every change to members, invitations, keys, the wallet and the organisation: who made it and when.
      </p>
      <div className="mt-3 flex flex-wrap items-end gap-2">
        <Field id="audit-family" label="Show">
          <select id="audit-family" className="input" value={family} onChange={(e) => setFamily(e.target.value)}>
            {FAMILIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <a
          className="btn-secondary"
          href={`${base}?${new URLSearchParams({ ...(family ? { action: family } : {}), format: "csv", limit: "500" })}`}
          download
        >
          Download CSV
        </a>
      </div>
      {shownError ? <ErrorNotice error={shownError} /> : null}
      {first.data ? (
        events.length === 0 ? (
          <EmptyState title="Nothing recorded yet" />
        ) : (
          <>
            <DataTable inline testId="audit-events" rows={events} rowKey={(e) => e.id} columns={COLUMNS} />
            {cursor ? (
              <button type="button" className="btn-secondary mt-3" onClick={() => void showMore()}>
                Show more
              </button>
            ) : null}
          </>
        )
      ) : (
        <Pending resource={first} />
      )}
    </Card>
  );
}
