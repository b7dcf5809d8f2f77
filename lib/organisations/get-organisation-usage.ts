import { csvField } from "@/lib/credits/csv-field";
import { getUsageReport } from "@/lib/credits/get-usage-report";
import { roleAllows } from "./roles";
import { requireMember } from "./membership";

export interface UsagePeriod {
  from?: string;
  to?: string;
}

const amounts = (r: { credits: number; calls: number; costUsd: number }) => ({ credits: r.credits, calls: r.calls, costUsd: r.costUsd });

/**
 * What an organisation's wallet paid for in a period, by member, by key and by model (the usage
 * report of lib/credits, three ways): the owner and admins see every member's, a member their own.
 */
export async function getOrganisationUsage(organisationId: string, userId: string, period: UsagePeriod) {
  const acting = await requireMember(organisationId, userId);
  const everyone = roleAllows(acting.role, "admin");
  const query = { accountId: organisationId, memberId: everyone ? null : userId, from: period.from, to: period.to, projection: false };
  const byMember = await getUsageReport({ ...query, groupBy: "member" });
  const [byKey, byModel] = await Promise.all([
    getUsageReport({ ...query, groupBy: "key" }),
    getUsageReport({ ...query, groupBy: "model" }),
  ]);
  return {
    from: byMember.from,
    to: byMember.to,
    scope: everyone ? ("organisation" as const) : ("member" as const),
    total: amounts(byMember.total),
    byMember: byMember.rows.map((r) => ({ userId: r.group ?? "", email: r.group ? r.label : null, ...amounts(r) })),
    byKey: byKey.rows.map((r) => ({ keyId: r.group, name: r.group ? r.label : null, ...amounts(r) })),
    byModel: byModel.rows.map((r) => ({ model: r.group, ...amounts(r) })),
  };
}

export type OrganisationUsage = Awaited<ReturnType<typeof getOrganisationUsage>>;

/** The usage report as CSV: one line per (dimension, value), then the total. */
export function usageCsv(u: OrganisationUsage): string {
  const lines = [["dimension", "id", "label", "calls", "credits", "costUsd"].join(",")];
  for (const m of u.byMember) lines.push(["member", m.userId, m.email, m.calls, m.credits, m.costUsd.toFixed(6)].map(csvField).join(","));
  for (const k of u.byKey)
    lines.push(
      ["key", k.keyId ?? "", k.name ?? (k.keyId ? "" : "(session)"), k.calls, k.credits, k.costUsd.toFixed(6)].map(csvField).join(","),
    );
  for (const m of u.byModel)
    lines.push(["model", m.model ?? "", m.model ?? "", m.calls, m.credits, m.costUsd.toFixed(6)].map(csvField).join(","));
  lines.push(["total", "", "", u.total.calls, u.total.credits, u.total.costUsd.toFixed(6)].map(csvField).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
