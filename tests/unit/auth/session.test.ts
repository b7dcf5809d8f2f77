import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { getSessionUser } from "@/lib/auth/session";

const secret = process.env.NEXTAUTH_SECRET as string;
const token = (claims: Record<string, unknown>, options: { secret?: string; maxAge?: number } = {}) =>
  encode({ token: claims, secret: options.secret ?? secret, maxAge: options.maxAge });
const req = (headers: Record<string, string>) => new Request("http://localhost:3000/api/x", { headers });

describe("getSessionUser (session from a plain Request)", () => {
  it("reads the next-auth session cookie", async () => {
    const jwt = await token({ sub: "u1", email: "a@example.com" });
    expect(await getSessionUser(req({ cookie: `other=1; next-auth.session-token=${jwt}` }))).toEqual({ id: "u1", email: "a@example.com" });
  });

  it("reads the __Secure- cookie used on https", async () => {
    const jwt = await token({ sub: "u2", email: null });
    expect(await getSessionUser(req({ cookie: `__Secure-next-auth.session-token=${jwt}` }))).toEqual({ id: "u2", email: null });
  });

  it("reassembles a chunked session cookie", async () => {
    const jwt = await token({ sub: "u3", email: "c@example.com" });
    const half = Math.floor(jwt.length / 2);
    const cookie = `next-auth.session-token.0=${jwt.slice(0, half)}; next-auth.session-token.1=${jwt.slice(half)}`;
    expect(await getSessionUser(req({ cookie }))).toEqual({ id: "u3", email: "c@example.com" });
  });

  it("accepts the same token as Authorization: Bearer", async () => {
    const jwt = await token({ sub: "u4", email: "d@example.com" });
    expect(await getSessionUser(req({ authorization: `Bearer ${jwt}` }))).toEqual({ id: "u4", email: "d@example.com" });
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
});
