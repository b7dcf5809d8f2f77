import { createHash, timingSafeEqual } from "node:crypto";
import { getSessionUser } from "@/lib/auth/session";
import { isOperatorSession } from "./operator-session";
import { env } from "@/lib/config/env";
import { accountState } from "@/lib/users/account-state";

export interface Operator {
  /** The operator's user id; null for the ADMIN_API_TOKEN bearer. */
  id: string | null;
  /** Their email, or "api-token". */
  label: string;
}

export const API_TOKEN_OPERATOR = "api-token";

/** Constant-time comparison of two secrets of any length (their sha256 digests are compared). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The operator making this request, or null for everyone else (the admin routes then answer 404, as
 * for a path no route serves). `Authorization: Bearer <ADMIN_API_TOKEN>` is the scripts' operator;
 * otherwise the session's user must be an operator whose account exists and is not locked.
 */
export async function resolveOperator(req: Request): Promise<Operator | null> {
  const e = env();
  const header = req.headers.get("authorization") ?? "";
  if (e.ADMIN_API_TOKEN && header.startsWith("Bearer ") && sameSecret(header.slice("Bearer ".length).trim(), e.ADMIN_API_TOKEN)) {
    return { id: null, label: API_TOKEN_OPERATOR };
  }
  if (e.ADMIN_EMAILS.length === 0) return null;
  const user = await getSessionUser(req);
  if (!user || !isOperatorSession(user)) return null;
  if ((await accountState(user.id, user)) !== "active") return null;
  return { id: user.id, label: (user.email as string).toLowerCase() };
}
