import { encode } from "next-auth/jwt";
import { describe, expect, it, vi } from "vitest";
import { getSessionUser } from "@/lib/auth/session";

const secret = process.env.NEXTAUTH_SECRET as string;
const token = (claims: Record<string, unknown>, options: { secret?: string; maxAge?: number } = {}) =>
  encode({ token: claims, secret: options.secret ?? secret, maxAge: options.maxAge });
const req = (headers: Record<string, string>) => new Request("http://localhost:3000/api/x", { headers });

describe("getSessionUser (session from a plain Request)", () => {
  it("reads the next-auth session cookie", async () => {
    const jwt = await token({ sub: "u1", email: "a@example.com" });
    expect(await getSessionUser(req({ cookie: `other=1; next-auth.session-token=${jwt}` }))).toEqual({
      id: "u1",
      email: "a@example.com",
      authMethod: null,
      emailVerified: false,
      signedInAt: expect.any(Number),
      sessionId: null,
    });
  });

  it("reads the __Secure- cookie used on https", async () => {
    const jwt = await token({ sub: "u2", email: null });
    expect(await getSessionUser(req({ cookie: `__Secure-next-auth.session-token=${jwt}` }))).toMatchObject({ id: "u2", email: null });
  });

  it("reassembles a chunked session cookie", async () => {
    const jwt = await token({ sub: "u3", email: "c@example.com" });
    const half = Math.floor(jwt.length / 2);
    const cookie = `next-auth.session-token.0=${jwt.slice(0, half)}; next-auth.session-token.1=${jwt.slice(half)}`;
    expect(await getSessionUser(req({ cookie }))).toMatchObject({ id: "u3", email: "c@example.com" });
  });

  it("accepts the same token as Authorization: Bearer", async () => {
    const jwt = await token({ sub: "u4", email: "d@example.com" });
    expect(await getSessionUser(req({ authorization: `Bearer ${jwt}` }))).toMatchObject({ id: "u4", email: "d@example.com" });
  });

  it("is null without a session, for a forged or foreign-secret token, an expired one, or one without a subject", async () => {
    expect(await getSessionUser(req({}))).toBeNull();
    expect(await getSessionUser(req({ cookie: "next-auth.session-token=forged" }))).toBeNull();
    const foreign = await token({ sub: "u5" }, { secret: "another-secret-entirely-0123456789" });
    expect(await getSessionUser(req({ cookie: `next-auth.session-token=${foreign}` }))).toBeNull();
    const expired = await token({ sub: "u6" }, { maxAge: -60 });
    expect(await getSessionUser(req({ cookie: `next-auth.session-token=${expired}` }))).toBeNull();
    const noSub = await token({ email: "x@example.com" });
    expect(await getSessionUser(req({ cookie: `next-auth.session-token=${noSub}` }))).toBeNull();
  });

  it("is null, never an error, for a token whose claims have the wrong shape (signed with the real secret)", async () => {
    for (const claims of [
      { sub: { id: "u10" } },
      { sub: ["u11"] },
      { sub: "" },
      { sub: "u12", email: { a: 1 } },
      { sub: "u13", signedInAt: "yesterday" },
      { sub: "x".repeat(500) },
    ]) {
      const jwt = await token(claims);
      expect(await getSessionUser(req({ cookie: `next-auth.session-token=${jwt}` }))).toBeNull();
    }
  });

  it("carries how the session signed in and whether the provider vouched for the email", async () => {
    const dev = await token({ sub: "u7", email: "e@example.com", authMethod: "dev", emailVerified: false });
    expect(await getSessionUser(req({ cookie: `next-auth.session-token=${dev}` }))).toEqual({
      id: "u7",
      email: "e@example.com",
      authMethod: "dev",
      emailVerified: false,
      signedInAt: expect.any(Number),
      sessionId: null,
    });
    const oidc = await token({ sub: "u8", email: "f@example.com", authMethod: "oidc", emailVerified: true });
    expect(await getSessionUser(req({ cookie: `next-auth.session-token=${oidc}` }))).toMatchObject({
      authMethod: "oidc",
      emailVerified: true,
    });
  });

  it("never serves a remembered decode past the token's expiry or across a rotated secret", async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    try {
      const jwt = await token({ sub: "u9", email: "g@example.com" }, { maxAge: 60 });
      const cookie = `next-auth.session-token=${jwt}`;
      expect(await getSessionUser(req({ cookie }))).toMatchObject({ id: "u9" });
      // A rotated secret is not served from memory: the token no longer verifies.
      const previous = process.env.NEXTAUTH_SECRET;
      process.env.NEXTAUTH_SECRET = "a-rotated-secret-0123456789abcdef0123";
      expect(await getSessionUser(req({ cookie }))).toBeNull();
      process.env.NEXTAUTH_SECRET = previous;
      expect(await getSessionUser(req({ cookie }))).toMatchObject({ id: "u9" });
      // Past the token's expiry the remembered decode is gone, and the token is refused.
      vi.setSystemTime(Date.now() + 61_000 + 15_000);
      expect(await getSessionUser(req({ cookie }))).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
