import { createHash, timingSafeEqual } from "node:crypto";
import { db } from "@/lib/db/client";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { isOperatorAddress, OPERATOR_TOKEN_PREFIX, signOperatorPayload } from "./create-operator-link";

const hash = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

/**
 * Spends an operator's sign-in link (create-operator-link.ts): true once, for a link signed by this
 * server's secret, unexpired, of this address, which is still in ADMIN_EMAILS. The link's nonce is
 * recorded as used in the sign-in tokens' table (unique), so a second use, on any instance, is false.
 */
export async function consumeOperatorLink(email: string, token: string, now = Date.now()): Promise<boolean> {
  if (!token.startsWith(OPERATOR_TOKEN_PREFIX) || token.length > 600) return false;
  const [payload, signature] = token.slice(OPERATOR_TOKEN_PREFIX.length).split(".");
  if (!payload || !signature) return false;
  const expected = Buffer.from(signOperatorPayload(payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  let claims: { e?: unknown; x?: unknown; n?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof claims;
  } catch {
    return false;
  }
  const address = normalizeEmail(email);
  if (claims.e !== address || typeof claims.x !== "number" || claims.x <= now || typeof claims.n !== "string") return false;
  if (!isOperatorAddress(address)) return false;
  const prisma = await db();
  const spent = await prisma.emailSignInToken.createMany({
    data: [{ email: address, tokenHash: hash(`operator-link:${claims.n}`), expiresAt: new Date(claims.x), usedAt: new Date(now) }],
    skipDuplicates: true,
  });
  return spent.count === 1;
}
