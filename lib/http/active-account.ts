import { AppError } from "@/lib/errors";
import { actingAccountOf } from "@/lib/organisations/membership";
import { accountState } from "@/lib/users/account-state";
import type { ActingAccount, RequiredRole } from "@/lib/organisations/roles";

/**
 * The active account of a session (docs/API-NOTES.md "Organisations"): which wallet a signed-in
 * person acts for, their own or an organisation's. The dashboard's switcher keeps it in this cookie
 * beside the session cookie; API clients may name it per request with the X-Account-Id header (which
 * wins). Either way it is only a wish: every request checks the membership (lib/organisations/membership.ts).
 */
export const ACTIVE_ACCOUNT_COOKIE = "active-account";
export const ACCOUNT_HEADER = "x-account-id";

/**
 * The account a request names for its person: the header, else the cookie when it was set for this
 * person (`<user id>:<account id>`: someone else signing in on the same browser starts on their own account).
 */
export function wantedAccount(req: Request, userId: string): string | null {
  const header = req.headers.get(ACCOUNT_HEADER);
  if (header) return header.trim();
  const cookies = req.headers.get("cookie");
  if (!cookies) return null;
  for (const part of cookies.split(";")) {
    const i = part.indexOf("=");
    if (i <= 0 || part.slice(0, i).trim() !== ACTIVE_ACCOUNT_COOKIE) continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      return null;
    }
    const [owner, account] = value.split(":");
    return owner === userId && account ? account : null;
  }
  return null;
}

/**
 * The account a request of a signed-in person acts for, with the role the route needs (403 below it).
 * An organisation an operator locked is read-only, as a locked person is: no charge, no change.
 */
export async function resolveActingAccount(req: Request, userId: string, needed: RequiredRole): Promise<ActingAccount> {
  const account = await actingAccountOf(userId, wantedAccount(req, userId), needed);
  if (account.kind === "organisation" && req.method !== "GET" && req.method !== "HEAD" && (await accountState(account.id)) === "locked") {
    throw new AppError("forbidden", "This organisation is locked: its wallet can be read but not charged or changed; contact support", {
      reason: "account_locked",
    });
  }
  return account;
}

/** The Set-Cookie value that makes `accountId` the active account of `userId`'s sessions in this browser (null: their own). */
export function activeAccountCookie(userId: string, accountId: string | null, secure: boolean): string {
  const attrs = ["Path=/", "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])];
  return accountId
    ? [`${ACTIVE_ACCOUNT_COOKIE}=${encodeURIComponent(`${userId}:${accountId}`)}`, "Max-Age=31536000", ...attrs].join("; ")
    : [`${ACTIVE_ACCOUNT_COOKIE}=`, "Max-Age=0", ...attrs].join("; ");
}
