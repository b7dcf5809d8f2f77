import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { checkWindowLimit } from "@/lib/ratelimit";
import { accountState } from "@/lib/users/account-state";
import { membershipOf } from "@/lib/organisations/membership";
import { authenticateApiKey, type ApiKeyPrincipal } from "./authenticate-api-key";
import { KEY_PATTERN } from "./key-secret";
import { touchKey } from "./key-spend";

/** A request made with an API key: the key, and whether its user's account is locked (reads only). */
export interface ApiKeyAuth {
  key: ApiKeyPrincipal;
  locked: boolean;
}

/**
 * Failed key attempts (unknown, revoked or expired keys) per client address: past the limit, every
 * key from that address is refused for the rest of the window without being looked up. The shared
 * store counts across instances; each instance remembers the addresses it saw refused.
 */
export const FAILED_KEY_ATTEMPTS = { limit: 20, windowMs: 10 * 60_000 };
const blockedUntil = new Map<string, number>();
const MAX_BLOCKED = 10_000;

/** Query parameters that name a credential: a key sent there is refused, whatever its value. */
const CREDENTIAL_PARAMS = new Set(["api_key", "apikey", "api-key", "key", "token", "access_token", "authorization"]);

function unauthorized(message: string, reason: string): AppError {
  return new AppError("unauthorized", message, { reason });
}

function tooManyFailures(untilMs: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((untilMs - Date.now()) / 1000));
  return new AppError("rate_limited", `Too many requests with invalid API keys from this address; retry after ${retryAfter} seconds`, {
    headers: { "Retry-After": String(retryAfter) },
    reason: "too_many_failed_attempts",
  });
}

async function countFailure(ip: string | null): Promise<void> {
  if (!ip) return;
  const outcome = await checkWindowLimit(`api_key_failures:ip:${ip}`, FAILED_KEY_ATTEMPTS.limit, FAILED_KEY_ATTEMPTS.windowMs);
  if (outcome && !outcome.allowed) {
    if (blockedUntil.size >= MAX_BLOCKED) blockedUntil.delete(blockedUntil.keys().next().value as string);
    blockedUntil.set(ip, outcome.reset * 1000);
    log.warn("api key attempts refused for an address", { ip, until: new Date(outcome.reset * 1000).toISOString() });
    throw tooManyFailures(outcome.reset * 1000);
  }
}

/**
 * The API key of a /v1 request: `Authorization: Bearer sk-...` only. A key in the URL is refused
 * (URLs end up in logs, proxies and browser history), never looked up. Messages never repeat the key.
 */
export async function resolveKeyRequest(req: Request, ip: string | null): Promise<ApiKeyAuth> {
  const url = new URL(req.url);
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase()) || KEY_PATTERN.test(value) || KEY_PATTERN.test(name)) {
      throw unauthorized(
        "API keys are accepted only in the Authorization header (Bearer), never in the URL; if this URL held a key, revoke it: URLs are kept in logs and browser history",
        "key_in_url",
      );
    }
  }
  const header = req.headers.get("authorization");
  if (!header) throw unauthorized("Missing API key: send it in the Authorization header as Bearer sk-...", "missing_api_key");
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) throw unauthorized("The Authorization header must be Bearer followed by the API key", "invalid_api_key");

  const until = ip ? blockedUntil.get(ip) : undefined;
  if (until !== undefined) {
    if (until > Date.now()) throw tooManyFailures(until);
    blockedUntil.delete(ip as string);
  }
  const found = await authenticateApiKey(match[1]);
  if (found.status !== "active") {
    await countFailure(ip);
    if (found.status === "revoked") throw unauthorized("This API key was revoked", "invalid_api_key");
    if (found.status === "expired") throw unauthorized("This API key has expired", "invalid_api_key");
    throw unauthorized("Incorrect API key provided; create keys on the dashboard's API keys page", "invalid_api_key");
  }
  // A deleted user's keys were deleted with them; this catches the seconds a cached key outlives them.
  const state = await accountState(found.key.userId);
  if (!state) throw unauthorized("Incorrect API key provided; create keys on the dashboard's API keys page", "invalid_api_key");
  // An organisation's key works while the member who made it belongs to it (removal also revokes it);
  // a locked member's keys are suspended like their own.
  let memberState: typeof state | null = "active";
  if (found.key.memberId) {
    if (!(await membershipOf(found.key.userId, found.key.memberId)))
      throw unauthorized("This API key was revoked: the member who made it left the organisation", "invalid_api_key");
    memberState = await accountState(found.key.memberId);
    if (!memberState) throw unauthorized("Incorrect API key provided; create keys on the dashboard's API keys page", "invalid_api_key");
  }
  await touchKey(found.key.keyId);
  return { key: found.key, locked: state === "locked" || memberState === "locked" };
}

/** Per-key requests per minute, for keys that have a limit. */
export async function checkKeyRate(key: ApiKeyPrincipal) {
  return key.rpm ? checkWindowLimit(`api_key_rpm:key:${key.keyId}`, key.rpm, 60_000) : null;
}
