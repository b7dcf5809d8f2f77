import { RATE_LIMIT_CATEGORIES, type RateLimitCategory } from "@/lib/ratelimit/categories";

/**
 * docs/API-NOTES.md's rate-limit table, printed from the OpenAPI documents (themselves generated from
 * the route declarations) by `npm run openapi`: the table says exactly what the code does. Every
 * operation is listed once, under its category or under "no request limit".
 */
export const RATE_LIMIT_TABLE_START =
  "<!-- rate-limit-table: printed by `npm run openapi` from the route declarations; edit those, not this -->";
export const RATE_LIMIT_TABLE_END = "<!-- /rate-limit-table -->";

type Operations = Record<string, Record<string, { "x-rate-limit"?: { category: RateLimitCategory } } | unknown>>;
const METHODS = ["get", "post", "put", "patch", "delete"];

export function rateLimitTable(documents: Array<{ paths: unknown }>): string {
  const byCategory = new Map<RateLimitCategory | null, string[]>();
  for (const document of documents) {
    for (const [path, item] of Object.entries(document.paths as Operations)) {
      for (const method of METHODS) {
        const op = item[method] as { "x-rate-limit"?: { category: RateLimitCategory } } | undefined;
        if (!op) continue;
        const category = op["x-rate-limit"]?.category ?? null;
        const list = byCategory.get(category) ?? [];
        list.push(`\`${method.toUpperCase()} ${path}\``);
        byCategory.set(category, list);
      }
    }
  }
  const figure = (n: number | null) => (n === null ? "none" : n.toLocaleString("en-US"));
  const rows = (Object.keys(RATE_LIMIT_CATEGORIES) as RateLimitCategory[]).map((name) => {
    const c = RATE_LIMIT_CATEGORIES[name];
    const endpoints = byCategory.get(name)?.join(", ") ?? "none";
    return `| ${name}${c.spec ? "" : " (not in SPEC)"} | ${figure(c.perUser)} | ${figure(c.perIp)} | ${c.protects} | ${endpoints} |`;
  });
  return [
    RATE_LIMIT_TABLE_START,
    "| Category | Per user | Per IP | Protects | Endpoints |",
    "|---|---|---|---|---|",
    ...rows,
    `| no request limit | | | owner-scoped reads of a few indexed rows, the AI calls (limited by credits and the AI slots below), health, configuration | ${(byCategory.get(null) ?? []).join(", ")} |`,
    RATE_LIMIT_TABLE_END,
  ].join("\n");
}

/** The markdown with its table replaced (the markers must be there once). */
export function withRateLimitTable(markdown: string, table: string): string {
  const start = markdown.indexOf(RATE_LIMIT_TABLE_START);
  const end = markdown.indexOf(RATE_LIMIT_TABLE_END);
  if (start < 0 || end < start) throw new Error("docs/API-NOTES.md lacks the rate-limit table's markers");
  return markdown.slice(0, start) + table + markdown.slice(end + RATE_LIMIT_TABLE_END.length);
}
