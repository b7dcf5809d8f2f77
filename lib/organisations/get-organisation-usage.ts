import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { roleAllows } from "./roles";
import { requireMember } from "./membership";

export interface UsagePeriod {
  from?: string;
  to?: string;
}

interface Group {
  id: string | null;
  calls: number;
  credits: number;
  micros: number;
}

const row = (g: Group) => ({ credits: g.credits, calls: g.calls, costUsd: Math.round(g.micros) / 1e6 });

/** The period asked for: [from, to) in UTC; default the current calendar month. At most 366 days. */
function periodOf(p: UsagePeriod, now = new Date()): { from: Date; to: Date } {
  const from = p.from ? new Date(p.from) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = p.to ? new Date(p.to) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  if (Number.isNaN(from.getTime())) throw new AppError("validation_failed", "Invalid query: from: must be an ISO 8601 date", { param: "from" });
  if (Number.isNaN(to.getTime())) throw new AppError("validation_failed", "Invalid query: to: must be an ISO 8601 date", { param: "to" });
  if (to <= from) throw new AppError("validation_failed", "Invalid query: to: must be after from", { param: "to" });
  if (to.getTime() - from.getTime() > 366 * 86_400_000) throw new AppError("validation_failed", "Invalid query: the period is at most 366 days", { param: "from" });
  return { from, to };
}

/**
 * What an organisation's wallet paid for in a period, by member, by key and by model: every charge
 * (settled, and reserved ones in flight at what they hold), with the provider's cost. The owner and
 * admins see every member's; a member sees their own.
 */
export async function getOrganisationUsage(organisationId: string, userId: string, period: UsagePeriod) {
  const acting = await requireMember(organisationId, userId);
  const { from, to } = periodOf(period);
  const everyone = roleAllows(acting.role, "admin");
  const prisma = await db();
  const member = everyone ? null : userId;
  const grouped = (column: "member_id" | "api_key_id" | "model") =>
    prisma.$queryRawUnsafe<{ id: string | null; calls: bigint; credits: bigint; micros: bigint | null }[]>(
      `SELECT ${column} AS id, COUNT(*) AS calls, COALESCE(SUM(amount), 0) AS credits, COALESCE(SUM(cost_micros), 0) AS micros
         FROM credit_operations
        WHERE user_id = $1 AND kind = 'charge' AND status IN ('reserved', 'settled') AND created_at >= $2 AND created_at < $3
          AND ($4::text IS NULL OR member_id = $4::text)
        GROUP BY ${column} ORDER BY credits DESC`,
      organisationId,
      from,
      to,
      member,
    );
  const [byMemberRaw, byKeyRaw, byModelRaw] = await Promise.all([grouped("member_id"), grouped("api_key_id"), grouped("model")]);
  const norm = (rows: { id: string | null; calls: bigint; credits: bigint; micros: bigint | null }[]): Group[] =>
    rows.map((r) => ({ id: r.id, calls: Number(r.calls), credits: Number(r.credits), micros: Number(r.micros ?? 0) }));
  const byMember = norm(byMemberRaw);
  const byKey = norm(byKeyRaw);
  const byModel = norm(byModelRaw);
  const memberIds = byMember.map((g) => g.id).filter((id): id is string => Boolean(id));
  const keyIds = byKey.map((g) => g.id).filter((id): id is string => Boolean(id));
  const [people, keys] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: memberIds } }, select: { id: true, email: true } }),
    prisma.apiKey.findMany({ where: { id: { in: keyIds }, userId: organisationId }, select: { id: true, name: true } }),
  ]);
  const emailOf = new Map(people.map((p) => [p.id, p.email]));
  const keyName = new Map(keys.map((k) => [k.id, k.name]));
  const total = byModel.reduce((t, g) => ({ id: null, calls: t.calls + g.calls, credits: t.credits + g.credits, micros: t.micros + g.micros }), { id: null, calls: 0, credits: 0, micros: 0 } as Group);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    scope: everyone ? ("organisation" as const) : ("member" as const),
    total: row(total),
    byMember: byMember.map((g) => ({ userId: g.id ?? "", email: g.id ? (emailOf.get(g.id) ?? null) : null, ...row(g) })),
    byKey: byKey.map((g) => ({ keyId: g.id, name: g.id ? (keyName.get(g.id) ?? null) : null, ...row(g) })),
    byModel: byModel.map((g) => ({ model: g.id, ...row(g) })),
  };
}

export type OrganisationUsage = Awaited<ReturnType<typeof getOrganisationUsage>>;

/** One CSV field: quoted when needed; text starting like a formula is prefixed so spreadsheets show it as text. */
function field(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The usage report as CSV: one line per (dimension, value). */
export function usageCsv(u: OrganisationUsage): string {
  const lines = [["dimension", "id", "label", "calls", "credits", "costUsd"].join(",")];
  for (const m of u.byMember) lines.push(["member", m.userId, m.email, m.calls, m.credits, m.costUsd.toFixed(6)].map(field).join(","));
  for (const k of u.byKey) lines.push(["key", k.keyId ?? "", k.name ?? (k.keyId ? "" : "(session)"), k.calls, k.credits, k.costUsd.toFixed(6)].map(field).join(","));
  for (const m of u.byModel) lines.push(["model", m.model ?? "", m.model ?? "", m.calls, m.credits, m.costUsd.toFixed(6)].map(field).join(","));
  lines.push(["total", "", "", u.total.calls, u.total.credits, u.total.costUsd.toFixed(6)].map(field).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
