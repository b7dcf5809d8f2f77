import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { csvField } from "./csv-field";
import { projectCycle } from "./project-cycle";

export const USAGE_GROUPS = ["day", "model", "key", "tag", "member", "end_user", "metadata"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];
export const USAGE_STACKS = ["model", "key"] as const;
export type UsageStack = (typeof USAGE_STACKS)[number];

export interface UsageQuery {
  accountId: string;
  /** Only this member's charges (an organisation's member who is not an admin). */
  memberId?: string | null;
  groupBy: UsageGroup;
  /** With groupBy day: a second dimension for stacked charts. */
  stack?: UsageStack | null;
  from?: string;
  to?: string;
  /** The IANA time zone whose days the day buckets are (default UTC). */
  timeZone?: string;
  /** With groupBy metadata: the request metadata key whose values are the groups. */
  metadataKey?: string;
  /** At most this many rows (default DEFAULT_USAGE_ROWS, at most MAX_USAGE_ROWS); the answer's nextCursor continues. */
  limit?: number;
  /** A previous answer's nextCursor. */
  cursor?: string;
  /** false: without the cycle's projection (a caller that does not show it). */
  projection?: boolean;
}

export const MAX_USAGE_ROWS = 5000;
export const DEFAULT_USAGE_ROWS = 1000;

export interface UsageRow {
  group: string | null;
  label: string | null;
  stack?: string | null;
  stackLabel?: string | null;
  credits: number;
  calls: number;
  costUsd: number;
  /** Tokens the provider reported for the group's settled calls (0 for calls without tokens). */
  promptTokens: number;
  completionTokens: number;
}

const COLUMN: Record<UsageGroup | UsageStack, string> = {
  // $5: the report's time zone (checked against the runtime's zone list before it gets here).
  day: "to_char(date_trunc('day', o.created_at AT TIME ZONE $5::text), 'YYYY-MM-DD')",
  model: "o.model",
  key: "o.api_key_id",
  tag: "t.tag",
  member: "o.member_id",
  // OpenAI's `user` field of a /v1 call (metadata.endUser); null: none given.
  end_user: "o.details->'metadata'->>'endUser'",
  // $6: metadata_key, one key of the /v1 request's `metadata` object (metadata.requestMetadata).
  metadata: "o.details->'metadata'->'requestMetadata'->>$6::text",
};

/** The sums every row and the total carry (tokens from the settled calls' metadata). */
const SUMS = `COUNT(*) AS calls, COALESCE(SUM(o.amount), 0) AS credits, COALESCE(SUM(o.cost_micros), 0) AS micros,
  COALESCE(SUM((o.details->'metadata'->>'promptTokens')::bigint), 0) AS prompt,
  COALESCE(SUM((o.details->'metadata'->>'completionTokens')::bigint), 0) AS completion`;
/** The charges of the report: $1 account, $2..$3 the period, $4 the member (null: all). */
const CHARGES = `o.user_id = $1 AND o.kind = 'charge' AND o.status IN ('reserved', 'settled') AND o.created_at >= $2 AND o.created_at < $3
        AND ($4::text IS NULL OR o.member_id = $4::text)`;

interface SumRow {
  calls: bigint;
  credits: bigint;
  micros: bigint | null;
  prompt: bigint | null;
  completion: bigint | null;
}

function amountsOf(r: SumRow) {
  return {
    credits: Number(r.credits),
    calls: Number(r.calls),
    costUsd: Math.round(Number(r.micros ?? 0)) / 1e6,
    promptTokens: Number(r.prompt ?? 0),
    completionTokens: Number(r.completion ?? 0),
  };
}

/** The paging cursor: the rows already answered, opaque to clients ("o" + offset, base64url). */
function offsetOf(cursor: string | undefined): number {
  if (!cursor) return 0;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const offset = /^o(\d{1,9})$/.exec(text)?.[1];
  if (offset === undefined)
    throw new AppError("validation_failed", "Invalid query: cursor: not a cursor this API gave", { param: "cursor" });
  return Number(offset);
}
const cursorAt = (offset: number) => Buffer.from(`o${offset}`, "utf8").toString("base64url");

/** An IANA time zone name the runtime knows (Intl), or a 400 naming `tz`. */
export function checkTimeZone(name: string | undefined): string {
  if (!name) return "UTC";
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new AppError("validation_failed", `Invalid query: tz: "${name.slice(0, 60)}" is not an IANA time zone (e.g. Europe/Paris)`, {
      param: "tz",
    });
  }
}

function periodOf(q: UsageQuery, now = new Date()): { from: Date; to: Date } {
  const from = q.from ? new Date(q.from) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = q.to ? new Date(q.to) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  if (Number.isNaN(from.getTime()))
    throw new AppError("validation_failed", "Invalid query: from: must be an ISO 8601 date", { param: "from" });
  if (Number.isNaN(to.getTime())) throw new AppError("validation_failed", "Invalid query: to: must be an ISO 8601 date", { param: "to" });
  if (to <= from) throw new AppError("validation_failed", "Invalid query: to: must be after from", { param: "to" });
  if (to.getTime() - from.getTime() > 366 * 86_400_000)
    throw new AppError("validation_failed", "Invalid query: the period is at most 366 days", { param: "from" });
  return { from, to };
}

/**
 * What an account's charges came to in a period, grouped by day, model, API key, request tag or member
 * (and, by day, stacked by model or key): every charge settled or in flight, its credits and what it
 * cost upstream. Tags come from the /v1 X-Request-Tags header (a call with two tags counts in both;
 * untagged calls under null). With the current allocation cycle's projection: what was spent since
 * the last reset, and at that pace what the cycle will come to, against the allocation.
 */
export async function getUsageReport(q: UsageQuery) {
  if (q.stack && q.groupBy !== "day")
    throw new AppError("validation_failed", "Invalid query: stack: only with group_by=day", { param: "stack" });
  if (q.groupBy === "metadata" && !q.metadataKey)
    throw new AppError("validation_failed", "Invalid query: metadata_key: required with group_by=metadata", { param: "metadata_key" });
  if (q.groupBy !== "metadata" && q.metadataKey)
    throw new AppError("validation_failed", "Invalid query: metadata_key: only with group_by=metadata", { param: "metadata_key" });
  const { from, to } = periodOf(q);
  const timeZone = checkTimeZone(q.timeZone);
  const limit = Math.min(Math.max(1, q.limit ?? DEFAULT_USAGE_ROWS), MAX_USAGE_ROWS);
  const offset = offsetOf(q.cursor);
  const prisma = await db();
  const group = COLUMN[q.groupBy];
  const stack = q.stack ? COLUMN[q.stack] : "NULL";
  const tagJoin =
    q.groupBy === "tag"
      ? "LEFT JOIN LATERAL jsonb_array_elements_text(COALESCE(o.details->'metadata'->'tags', '[]'::jsonb)) AS t(tag) ON true"
      : "";
  // One row more than asked: whether there is a next page.
  const rows = await prisma.$queryRawUnsafe<(SumRow & { g: string | null; s: string | null })[]>(
    `SELECT ${group} AS g, ${stack} AS s, ${SUMS}
       FROM credit_operations o ${tagJoin}
      WHERE ${CHARGES}
        AND $5::text IS NOT NULL AND ($6::text IS NULL OR $6::text <> '') -- both typed when no column uses them
      GROUP BY 1, 2 ORDER BY 1 NULLS LAST, 2 NULLS LAST
      LIMIT ${limit + 1} OFFSET ${offset}`,
    q.accountId,
    from,
    to,
    q.memberId ?? null,
    timeZone,
    q.metadataKey ?? null,
  );
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const keyIds = new Set<string>();
  const memberIds = new Set<string>();
  for (const r of page) {
    for (const [dim, value] of [
      [q.groupBy, r.g],
      [q.stack, r.s],
    ] as const) {
      if (!value) continue;
      if (dim === "key") keyIds.add(value);
      if (dim === "member") memberIds.add(value);
    }
  }
  const [keys, people] = await Promise.all([
    keyIds.size
      ? prisma.apiKey.findMany({ where: { id: { in: [...keyIds] }, userId: q.accountId }, select: { id: true, name: true } })
      : [],
    memberIds.size ? prisma.user.findMany({ where: { id: { in: [...memberIds] } }, select: { id: true, email: true } }) : [],
  ]);
  const names = new Map<string, string | null>([
    ...keys.map((k) => [k.id, k.name] as const),
    ...people.map((p) => [p.id, p.email] as const),
  ]);
  const label = (dim: UsageGroup | UsageStack | null | undefined, value: string | null) =>
    value === null
      ? dim === "key"
        ? "session (no key)"
        : dim === "tag"
          ? "untagged"
          : dim === "end_user"
            ? "no end user"
            : dim === "member"
              ? "no member (service keys)"
              : dim === "metadata"
                ? `no ${q.metadataKey}`
                : null
      : dim === "key" || dim === "member"
        ? (names.get(value) ?? value)
        : value;
  const out: UsageRow[] = page.map((r) => ({
    group: r.g,
    label: label(q.groupBy, r.g),
    ...(q.stack ? { stack: r.s, stackLabel: label(q.stack, r.s) } : {}),
    ...amountsOf(r),
  }));
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    groupBy: q.groupBy,
    metadataKey: q.metadataKey ?? null,
    stack: q.stack ?? null,
    timeZone,
    rows: out,
    nextCursor: more ? cursorAt(offset + limit) : null,
    // Over every row, not this page's (tag rows count a call once per tag: the total is taken over the calls).
    total: await totalOf(q, from, to),
    projection: q.projection === false ? null : await projectCycle(q.accountId, q.memberId ?? null),
  };
}

/** The period's charges, each counted once. */
async function totalOf(q: UsageQuery, from: Date, to: Date) {
  const prisma = await db();
  const [total] = await prisma.$queryRawUnsafe<SumRow[]>(
    `SELECT ${SUMS} FROM credit_operations o WHERE ${CHARGES}`,
    q.accountId,
    from,
    to,
    q.memberId ?? null,
  );
  return amountsOf(total);
}

export type UsageReport = Awaited<ReturnType<typeof getUsageReport>>;

/** The report as CSV: one line per row (group, its label, the stack and its label, calls, credits, cost, tokens). */
export function usageReportCsv(r: UsageReport): string {
  const lines = [
    [
      r.groupBy,
      "label",
      ...(r.stack ? [r.stack, `${r.stack}Label`] : []),
      "calls",
      "credits",
      "costUsd",
      "promptTokens",
      "completionTokens",
    ].join(","),
  ];
  for (const row of r.rows)
    lines.push(
      [
        row.group,
        row.label,
        ...(r.stack ? [row.stack, row.stackLabel] : []),
        row.calls,
        row.credits,
        row.costUsd.toFixed(6),
        row.promptTokens,
        row.completionTokens,
      ]
        .map(csvField)
        .join(","),
    );
  return `${lines.join("\r\n")}\r\n`;
}
