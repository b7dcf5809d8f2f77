import { afterAll, describe, expect, it } from "vitest";
import * as emailLink from "@/app/api/auth/email-link/route";
import { authOptions } from "@/lib/auth/options";
import { closeDb, db } from "@/lib/db/client";
import { listLocalMail } from "@/lib/email/local-mailbox";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

/** The email-link provider's authorize() as next-auth calls it on POST /api/auth/callback/email-link. */
function authorize(email: string, token: string) {
  const provider = authOptions().providers.find((p) => (p as { options?: { id?: string } }).options?.id === "email-link") as unknown as {
    options: {
      authorize: (
        credentials: Record<string, string>,
        req: unknown,
      ) => Promise<{ id: string; email: string; emailVerified?: boolean } | null>;
    };
  };
  return provider.options.authorize({ email, token }, {});
}

const request = (email: string, headers: Record<string, string> = {}) =>
  call(emailLink.POST, { path: "/api/auth/email-link", body: { email, callbackUrl: "/dashboard/credits" }, headers });

/** The link of the newest email to `to` in the local mailbox, and its fragment's parameters. */
async function linkFor(to: string): Promise<URL & { params: URLSearchParams }> {
  const mail = (await listLocalMail()).find((m) => m.to === to);
  const href = /https?:\/\/\S+\/signin\/email#\S+/.exec(mail?.text ?? "")?.[0];
  if (!href) throw new Error(`no sign-in link for ${to}`);
  const url = new URL(href);
  return Object.assign(url, { params: new URLSearchParams(url.hash.slice(1)) });
}

describe("sign-in by emailed link", () => {
  it("answers the same for an address with an account and one without, and stores only the token's hash", async () => {
    await signIn("has-account@example.com");
    const known = await request("has-account@example.com");
    const unknown = await request("nobody-yet@example.com");
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    const link = await linkFor("nobody-yet@example.com");
    expect(link.pathname).toBe("/signin/email");
    // Nothing in the query: the token travels in the fragment, which no server, log or trace sees.
    expect(link.search).toBe("");
    expect(link.params.get("callbackUrl")).toBe("/dashboard/credits");
    const token = link.params.get("token") as string;
    expect(token.length).toBeGreaterThanOrEqual(43);
    const rows = await (await db()).emailSignInToken.findMany({ where: { email: "nobody-yet@example.com" } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("signs in once per link (a new address becomes an account with a verified email), never twice, never after expiry", async () => {
    await request("Link-User@Example.com");
    const link = await linkFor("link-user@example.com");
    const token = link.params.get("token") as string;
    expect(await authorize("other@example.com", token)).toBeNull();
    const user = await authorize("link-user@example.com", token);
    expect(user).toMatchObject({ email: "link-user@example.com", emailVerified: true });
    expect(await authorize("link-user@example.com", token)).toBeNull();

    await request("late@example.com");
    const late = (await linkFor("late@example.com")).params.get("token") as string;
    await (await db()).emailSignInToken.updateMany({ where: { email: "late@example.com" }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect(await authorize("late@example.com", late)).toBeNull();
  });

  it("a sign-in voids the address's older unused links", async () => {
    await request("two-links@example.com");
    const older = (await linkFor("two-links@example.com")).params.get("token") as string;
    await request("two-links@example.com");
    const newer = (await linkFor("two-links@example.com")).params.get("token") as string;
    expect(newer).not.toBe(older);
    expect(await authorize("two-links@example.com", newer)).toMatchObject({ email: "two-links@example.com" });
    expect(await authorize("two-links@example.com", older)).toBeNull();
  });

  it("builds links from NEXTAUTH_URL only, never from the request's Host or forwarding headers", async () => {
    const restore = setEnv({ NEXTAUTH_URL: "https://app.example.com" });
    try {
      await request("host-header@example.com", { host: "attacker.example", "x-forwarded-host": "attacker.example" });
      const link = await linkFor("host-header@example.com");
      expect(link.origin).toBe("https://app.example.com");
    } finally {
      restore();
    }
  });

  it("refuses a locked account even with a good link", async () => {
    const { user } = await signIn("locked-link@example.com");
    await (await db()).user.update({ where: { id: user.id }, data: { lockedAt: new Date(), lockReason: "test" } });
    await request("locked-link@example.com");
    const token = (await linkFor("locked-link@example.com")).params.get("token") as string;
    expect(await authorize("locked-link@example.com", token)).toBeNull();
  });

  it("limits links per address (5 an hour) and per client address (10 an hour), 429 with Retry-After", async () => {
    const restore = setEnv({ RATE_LIMIT_ENABLED: "true" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await request("flood@example.com", { "x-forwarded-for": "198.51.100.20" })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      const perClient: number[] = [];
      for (let i = 0; i < 11; i++) perClient.push((await request(`spray-${i}@example.com`, { "x-forwarded-for": "198.51.100.21" })).status);
      expect(perClient.slice(0, 10).every((s) => s === 200)).toBe(true);
      const refused = await request("spray-last@example.com", { "x-forwarded-for": "198.51.100.21" });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      restore();
    }
  });

  it("answers 400 for a bad address and 404 where email sign-in is off (production without an email provider)", async () => {
    expect((await request("not-an-address")).status).toBe(400);
    const restore = setEnv({ APP_ENV: "production", CRON_SECRET: "c".repeat(32) });
    try {
      expect((await request("someone@example.com")).status).toBe(404);
      expect(authOptions().providers.some((p) => (p as { options?: { id?: string } }).options?.id === "email-link")).toBe(false);
    } finally {
      restore();
    }
  });
});
