import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as signOutEverywhereRoute from "@/app/api/user/sign-out-everywhere/route";
import * as userStatus from "@/app/api/user/status/route";
import { authOptions } from "@/lib/auth/options";
import { revokeSession } from "@/lib/auth/revoke-session";
import { sweepRevokedSessions } from "@/lib/users/sweep-revoked-sessions";
import { db } from "@/lib/db/client";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";

/**
 * Sessions end server-side: signing out revokes that session's id (any copy of its cookie is refused),
 * "sign out everywhere" ends every session signed in until then, and a refresh of an ended session
 * gets no new cookie. Real handlers, real tokens, the embedded database.
 */
const status = (cookie: string) => call(userStatus.GET, { path: "/api/user/status", cookie });

describe("ending sessions", () => {
  it("signing out ends that session only: a copy of its cookie is refused, the user's other sessions go on", async () => {
    const { user } = await signIn();
    const [laptop, phone] = [randomUUID(), randomUUID()];
    const laptopCookie = await sessionCookie(user, { sid: laptop, signedInAt: Date.now() });
    const phoneCookie = await sessionCookie(user, { sid: phone, signedInAt: Date.now() });
    expect((await status(laptopCookie)).status).toBe(200);
    await revokeSession({ userId: user.id, sessionId: laptop });
    const refused = await status(laptopCookie);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: "Authentication required", code: "unauthorized" });
    expect((await status(phoneCookie)).status).toBe(200);
    // Signing out twice changes nothing.
    await revokeSession({ userId: user.id, sessionId: laptop });
    expect(await (await db()).revokedSession.count({ where: { userId: user.id } })).toBe(1);
  });

  it("signs out everywhere: every session signed in until then ends, one signed in afterwards works", async () => {
    const { user } = await signIn();
    const before = Date.now() - 1_000;
    const cookies = [
      await sessionCookie(user, { sid: randomUUID(), signedInAt: before }),
      await sessionCookie(user, { sid: randomUUID(), signedInAt: before }),
    ];
    const res = await call(signOutEverywhereRoute.POST, { path: "/api/user/sign-out-everywhere", method: "POST", cookie: cookies[0] });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.sessionsRevokedAt)).toBeGreaterThan(before);
    for (const cookie of cookies) expect((await status(cookie)).status).toBe(401);
    const later = await sessionCookie(user, { sid: randomUUID(), signedInAt: Date.now() + 1_000 });
    expect((await status(later)).status).toBe(200);
    expect((await call(signOutEverywhereRoute.POST, { path: "/api/user/sign-out-everywhere", method: "POST" })).status).toBe(401);
  });

  it("a token from before sessions had ids ends all of its user's sessions when it signs out", async () => {
    const { user } = await signIn();
    const old = await sessionCookie(user, { signedInAt: Date.now() - 2_000 });
    const other = await sessionCookie(user, { sid: randomUUID(), signedInAt: Date.now() - 2_000 });
    await revokeSession({ userId: user.id, sessionId: null });
    expect((await status(old)).status).toBe(401);
    expect((await status(other)).status).toBe(401);
  });

  it("gives a signed-out session no refreshed cookie: the jwt callback refuses it (next-auth then clears the cookie)", async () => {
    const { user } = await signIn();
    const sid = randomUUID();
    const jwt = authOptions().callbacks!.jwt!;
    const token = { sub: user.id, email: user.email, sid, signedInAt: Date.now() };
    await expect(jwt({ token, user: undefined as never, account: null })).resolves.toMatchObject({ sid });
    await revokeSession({ userId: user.id, sessionId: sid });
    await expect(jwt({ token, user: undefined as never, account: null })).rejects.toThrow("session ended");
  });

  it("sign-in gives every session its own id", async () => {
    const jwt = authOptions().callbacks!.jwt!;
    const { user } = await signIn();
    const sign = () =>
      jwt({
        token: {},
        user: { id: user.id, email: user.email } as never,
        account: { provider: "dev", type: "credentials", providerAccountId: user.id },
      });
    const [a, b] = [await sign(), await sign()];
    expect(typeof a.sid).toBe("string");
    expect(a.sid).not.toBe(b.sid);
  });

  it("the daily housekeeping drops revoked ids whose tokens have all expired", async () => {
    const { user } = await signIn();
    const prisma = await db();
    await prisma.revokedSession.create({ data: { sid: randomUUID(), userId: user.id, expiresAt: new Date(Date.now() - 1_000) } });
    const kept = randomUUID();
    await revokeSession({ userId: user.id, sessionId: kept });
    await sweepRevokedSessions();
    expect((await prisma.revokedSession.findMany({ where: { userId: user.id } })).map((r) => r.sid)).toEqual([kept]);
  });
});
