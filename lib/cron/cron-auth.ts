import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/config/env";

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the request carries `Authorization: Bearer <CRON_SECRET>`. */
export function hasCronBearer(req: Request): boolean {
  const secret = env().CRON_SECRET;
  const header = req.headers.get("authorization") ?? "";
  if (!secret || !header.startsWith("Bearer ")) return false;
  return safeEqual(header.slice("Bearer ".length).trim(), secret);
}

/**
 * Who may run a job (DESIGN.md §4): in production always the bearer token; elsewhere the bearer token
 * when CRON_SECRET is set, and anyone when it is not.
 */
export function mayRunCron(req: Request): boolean {
  const e = env();
  if (e.isProduction || e.CRON_SECRET) return hasCronBearer(req);
  return true;
}
