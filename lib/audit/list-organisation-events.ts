import { csvField } from "@/lib/credits/csv-field";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { ORGANISATION_AUDIT_ACTIONS, type OrganisationAuditAction } from "./record-organisation-event";

export const MAX_AUDIT_PAGE = 500;

export interface AuditQuery {
  organisationId: string;
  limit?: number;
  cursor?: string;
  /** Only these actions (e.g. key.created), or every action of a family ("key"). */
  action?: string;
  from?: string;
  to?: string;
}

export interface AuditEventView {
  id: string;
  createdAt: string;
  action: OrganisationAuditAction;
  targetType: string;
  targetId: string | null;
  actor: { id: string | null; email: string | null } | null;
  details: Record<string, unknown>;
}

const invalid = (param: string, message: string) => new AppError("validation_failed", `Invalid query: ${param}: ${message}`, { param });

function cursorOf(text: string | undefined): { at: Date; id: string } | null {
  if (!text) return null;
  const [at, id] = Buffer.from(text, "base64url").toString("utf8").split("|");
  const when = new Date(at ?? "");
  if (!id || Number.isNaN(when.getTime())) throw invalid("cursor", "not a cursor this API gave");
  return { at: when, id };
}

function dateOf(param: string, value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw invalid(param, "must be an ISO 8601 date");
  return d;
}

/**
 * An organisation's audit log, newest first, in pages (a cursor on time and id, so rows written while
 * paging never shift a page), optionally one action or one family of actions and a period. Who may
 * read it is the caller's to check (lib/organisations/get-organisation-audit.ts, the operator API).
 */
export async function listOrganisationEvents(q: AuditQuery): Promise<{ events: AuditEventView[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(1, q.limit ?? 100), MAX_AUDIT_PAGE);
  if (q.action && !ORGANISATION_AUDIT_ACTIONS.some((a) => a === q.action || a.startsWith(`${q.action}.`)))
    throw invalid("action", `"${q.action.slice(0, 60)}" is not an action or a family of them (e.g. key, member.updated)`);
  const cursor = cursorOf(q.cursor);
  const from = dateOf("from", q.from);
  const to = dateOf("to", q.to);
  const where: Prisma.OrganisationAuditEventWhereInput = {
    organisationId: q.organisationId,
    ...(q.action ? (q.action.includes(".") ? { action: q.action } : { action: { startsWith: `${q.action}.` } }) : {}),
    ...(from || to ? { createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } } : {}),
    ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}),
  };
  const prisma = await db();
  const rows = await prisma.organisationAuditEvent.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map((r) => ({
      id: r.id,
      createdAt: r.createdAt.toISOString(),
      action: r.action as OrganisationAuditAction,
      targetType: r.targetType,
      targetId: r.targetId,
      actor: r.actorId || r.actorEmail ? { id: r.actorId, email: r.actorEmail } : null,
      details: (r.details && typeof r.details === "object" && !Array.isArray(r.details) ? r.details : {}) as Record<string, unknown>,
    })),
    nextCursor: rows.length > limit && last ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString("base64url") : null,
  };
}

/** A page of the audit log as CSV (RFC 4180, CRLF): time, action, who, target, details as JSON. */
export function auditCsv(events: AuditEventView[]): string {
  const lines = [["createdAt", "action", "actorId", "actorEmail", "targetType", "targetId", "details"].join(",")];
  for (const e of events)
    lines.push(
      [
        e.createdAt,
        e.action,
        e.actor?.id ?? "",
        e.actor?.email ?? (e.actor ? "" : "site"),
        e.targetType,
        e.targetId ?? "",
        JSON.stringify(e.details),
      ]
        .map(csvField)
        .join(","),
    );
  return `${lines.join("\r\n")}\r\n`;
}
