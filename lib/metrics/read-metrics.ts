import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { renderMetrics } from "./index";

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /api/metrics: this process's metrics in Prometheus text format. With METRICS_TOKEN set the
 * scraper sends `Authorization: Bearer <token>` (401 otherwise, compared in constant time); without
 * it the endpoint is open outside production and does not exist (404) in production.
 */
export async function readMetrics(req: Request): Promise<Response> {
  const { METRICS_TOKEN: token, isProduction } = env();
  if (!token && isProduction) throw new AppError("not_found", "Not found");
  if (token) {
    const header = req.headers.get("authorization") ?? "";
    const given = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!sameSecret(given, token)) throw new AppError("unauthorized", "Invalid or missing metrics bearer token");
  }
  const { contentType, body } = await renderMetrics();
  return new Response(body, { status: 200, headers: { "content-type": contentType, "cache-control": "no-store" } });
}
