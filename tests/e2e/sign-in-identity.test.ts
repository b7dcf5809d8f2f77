import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";
import { startOidcStub, type OidcClaims, type OidcStub } from "../helpers/oidc-stub";

/**
 * Single sign-on as an attacker would try it, through the real production server and a real OIDC
 * flow (discovery, authorization code + PKCE, RS256 id_token) against a local OpenID provider: an
 * identity is linked to an existing account by email only when the provider verified that email.
 */
const ADMIN_TOKEN = "e2e-admin-api-token-0123456789abcdef0123";
let server: RunningServer;
let oidc: OidcStub;

beforeAll(async () => {
  oidc = await startOidcStub();
  server = await startServer(
    {
      AUTH_OIDC_ISSUER: oidc.issuer,
      AUTH_OIDC_ID: oidc.clientId,
      AUTH_OIDC_SECRET: oidc.clientSecret,
      AUTH_OIDC_NAME: "Test SSO",
      ADMIN_EMAILS: "boss@example.com",
      ADMIN_API_TOKEN: ADMIN_TOKEN,
    },
    { dataDirPrefix: "svc-sso-" },
  );
});

afterAll(async () => {
  await server?.stop();
  await oidc?.close();
  if (server) removeDir(server.dataDir);
});

/** The whole browser dance: csrf, POST signin/oidc, the provider's authorize, our callback. Returns where it lands. */
async function oidcSignIn(client: Client, claims: OidcClaims): Promise<string> {
  oidc.queue(claims);
  const { body } = await client.json<{ csrfToken: string }>("/api/auth/csrf");
  const start = await client.fetch("/api/auth/signin/oidc", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken: body.csrfToken, callbackUrl: `${server.baseUrl}/dashboard` }).toString(),
  });
  expect(start.status).toBe(302);
  const authorize = start.headers.get("location") as string;
  expect(authorize.startsWith(`${oidc.issuer}/authorize?`)).toBe(true);
  const back = await fetch(authorize, { redirect: "manual" });
  const callback = new URL(back.headers.get("location") as string);
  const done = await client.fetch(`${callback.pathname}${callback.search}`);
  expect([302, 303]).toContain(done.status);
  return new URL(done.headers.get("location") as string, server.baseUrl).toString();
}

async function sessionOf(client: Client): Promise<{ id?: string; email?: string } | undefined> {
  const { body } = await client.json<{ user?: { id: string; email: string } } | null>("/api/auth/session");
  return body?.user;
}

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${server.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });

async function overview(userId: string) {
  const res = await admin(`/api/admin/users/${userId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { identities: { id: string; provider: string; providerAccountId: string }[] };
}

async function findUser(email: string): Promise<string | null> {
  const res = await admin(`/api/admin/users?q=${encodeURIComponent(email)}`);
  const { users } = (await res.json()) as { users: { id: string; email: string }[] };
  return users.find((u) => u.email === email)?.id ?? null;
}

describe("OIDC sign-in and account linking", () => {
  it("refuses to link an existing customer's account to an identity whose email the provider did not verify (false, absent)", async () => {
    const victim = new Client(server.baseUrl);
    await victim.signIn("victim@example.com");
    const victimId = (await sessionOf(victim))?.id as string;
    expect(victimId).toBeTruthy();

    for (const claims of [
      { sub: "attacker-1", email: "victim@example.com", email_verified: false },
      { sub: "attacker-2", email: "Victim@Example.com" },
      { sub: "attacker-3", email: "victim@example.com", email_verified: "false" },
    ] as OidcClaims[]) {
      const attacker = new Client(server.baseUrl);
      const landed = await oidcSignIn(attacker, claims);
      expect(landed).toBe(`${server.baseUrl}/signin?error=EmailNotVerified`);
      expect(await sessionOf(attacker)).toBeUndefined();
      expect([...attacker.cookies.keys()].some((k) => k.includes("session-token"))).toBe(false);
    }
    expect((await overview(victimId)).identities).toEqual([]);

    // The page the attacker lands on says why, in words.
    const page = await (await fetch(`${server.baseUrl}/signin?error=EmailNotVerified`)).text();
    expect(page).toContain("has not verified");
  });

  it("creates nothing for an unverified email nobody uses yet", async () => {
    const landed = await oidcSignIn(new Client(server.baseUrl), {
      sub: "squatter",
      email: "future-customer@example.com",
      email_verified: false,
    });
    expect(landed).toContain("error=EmailNotVerified");
    expect(await findUser("future-customer@example.com")).toBeNull();
  });

  it("links a verified email to the existing account once, then the identity signs in as that user whatever email it shows", async () => {
    const owner = new Client(server.baseUrl);
    await owner.signIn("owner@example.com");
    const ownerId = (await sessionOf(owner))?.id;

    const sso = new Client(server.baseUrl);
    expect(await oidcSignIn(sso, { sub: "owner-sso", email: "owner@example.com", email_verified: true, name: "Owner" })).toBe(
      `${server.baseUrl}/dashboard`,
    );
    expect((await sessionOf(sso))?.id).toBe(ownerId);
    const { identities } = await overview(ownerId as string);
    expect(identities).toMatchObject([{ provider: "oidc", providerAccountId: "owner-sso" }]);

    // Later the same subject comes back with another, unverified address: still the owner, no new user.
    const again = new Client(server.baseUrl);
    expect(await oidcSignIn(again, { sub: "owner-sso", email: "someone-else@example.com" })).toBe(`${server.baseUrl}/dashboard`);
    expect(await sessionOf(again)).toMatchObject({ id: ownerId, email: "owner@example.com" });
    expect(await findUser("someone-else@example.com")).toBeNull();

    // A verified "true" string (some issuers send one) creates a new user for a new address.
    const fresh = new Client(server.baseUrl);
    expect(await oidcSignIn(fresh, { sub: "newcomer", email: "newcomer@example.com", email_verified: "true" })).toBe(
      `${server.baseUrl}/dashboard`,
    );
    expect((await sessionOf(fresh))?.email).toBe("newcomer@example.com");
  });

  it("counts an email as verified for the operator check only when the provider said so in that sign-in", async () => {
    const verified = new Client(server.baseUrl);
    await oidcSignIn(verified, { sub: "boss-sso", email: "boss@example.com", email_verified: true });
    expect((await verified.fetch("/api/admin/metrics/summary")).status).toBe(200);

    // The same linked identity, now without the claim: signed in, but not an operator.
    const unvouched = new Client(server.baseUrl);
    expect(await oidcSignIn(unvouched, { sub: "boss-sso", email: "boss@example.com" })).toBe(`${server.baseUrl}/dashboard`);
    expect((await sessionOf(unvouched))?.email).toBe("boss@example.com");
    expect((await unvouched.fetch("/api/admin/metrics/summary")).status).toBe(404);
  });

  it("lets an operator unlink an identity: it no longer signs in as the user, and the user's sessions end", async () => {
    const user = new Client(server.baseUrl);
    await oidcSignIn(user, { sub: "unlink-me", email: "unlink@example.com", email_verified: true });
    const userId = (await sessionOf(user))?.id as string;
    expect((await user.fetch("/api/user/status")).status).toBe(200);
    const [identity] = (await overview(userId)).identities;

    expect(
      (await admin(`/api/admin/users/${userId}/identities/${identity.id}/unlink`, { method: "POST", body: JSON.stringify({}) })).status,
    ).toBe(400);
    const res = await admin(`/api/admin/users/${userId}/identities/${identity.id}/unlink`, {
      method: "POST",
      body: JSON.stringify({ reason: "not the customer's identity" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ unlinked: true, provider: "oidc" });
    expect((await overview(userId)).identities).toEqual([]);
    expect(
      (
        await admin(`/api/admin/users/${userId}/identities/${identity.id}/unlink`, {
          method: "POST",
          body: JSON.stringify({ reason: "twice" }),
        })
      ).status,
    ).toBe(404);

    // The session opened before the unlink is over, even after a refresh of its token.
    expect((await user.fetch("/api/user/status")).status).toBe(401);
    await user.fetch("/api/auth/session");
    expect((await user.fetch("/api/user/status")).status).toBe(401);

    const audit = await (await admin(`/api/admin/audit?action=user.identity.unlink&targetId=${userId}`)).json();
    expect(audit.actions).toMatchObject([{ action: "user.identity.unlink", reason: "not the customer's identity" }]);

    // Signing in again (verified) links it afresh and works.
    const back = new Client(server.baseUrl);
    await oidcSignIn(back, { sub: "unlink-me", email: "unlink@example.com", email_verified: true });
    expect((await back.fetch("/api/user/status")).status).toBe(200);
  });
});

describe("the operator console against cross-site writes, onlookers and locks", () => {
  async function operatorClient(sub: string, email: string): Promise<{ client: Client; id: string }> {
    const client = new Client(server.baseUrl);
    await oidcSignIn(client, { sub, email, email_verified: true });
    return { client, id: (await sessionOf(client))?.id as string };
  }

  it("refuses a cross-site credit adjustment made with the operator's cookie, and JSON sent as text/plain", async () => {
    const { client } = await operatorClient("boss-csrf", "boss@example.com");
    const target = new Client(server.baseUrl);
    await target.signIn("csrf-target@example.com");
    const targetId = (await sessionOf(target))?.id as string;
    const body = JSON.stringify({ amount: 500, bucket: "subscription", reason: "csrf attempt", idempotencyKey: "csrf-1" });
    const balance = async () =>
      ((await (await admin(`/api/admin/users/${targetId}`)).json()) as { credits: { balances: { subscription: number } } }).credits.balances
        .subscription;
    const before = await balance();

    for (const headers of <Record<string, string>[]>[
      { origin: "https://evil.example", "sec-fetch-site": "cross-site", "content-type": "text/plain" },
      { origin: "https://evil.example", "sec-fetch-site": "cross-site", "content-type": "application/json" },
      { origin: "https://app.sibling.example", "sec-fetch-site": "same-site", "content-type": "application/json" },
      { origin: "https://evil.example", "content-type": "application/json" },
    ]) {
      const res = await client.fetch(`/api/admin/users/${targetId}/credits`, { method: "POST", headers, body });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ code: "forbidden", error: expect.stringContaining("Cross-site") });
    }
    // From its own pages, but JSON as text/plain: refused too.
    const plain = await client.fetch(`/api/admin/users/${targetId}/credits`, {
      method: "POST",
      headers: { origin: server.baseUrl, "sec-fetch-site": "same-origin", "content-type": "text/plain" },
      body,
    });
    expect(plain.status).toBe(415);
    expect(await balance()).toBe(before);
    // The console itself may.
    const ok = await client.fetch(`/api/admin/users/${targetId}/credits`, {
      method: "POST",
      headers: { origin: server.baseUrl, "sec-fetch-site": "same-origin", "content-type": "application/json" },
      body,
    });
    expect(ok.status).toBe(200);
    expect(await balance()).toBe(before + 500);
  });

  it("answers /admin and its sub-paths to anyone else exactly as an unknown path: body, headers, RSC payload; the console's own path is not found", async () => {
    // What may differ between two answers of the same kind: the nonce, the request id, the date.
    const VARYING = new Set(["date", "x-request-id", "content-security-policy", "content-length", "etag"]);
    const headersOf = (res: Response) =>
      [...res.headers.entries()]
        .filter(([name]) => !VARYING.has(name))
        .map(([name, value]) => `${name}: ${value}`)
        .sort();
    // What differs between any two answers: the nonce (in an attribute, and in the router payload, where
    // it is JSON inside a JS string with escaped quotes) and the per-render keys of the metadata boundaries.
    const normalize = (text: string, word: string) =>
      text
        .replace(/(nonce(?:=|\\?"?:)\\?")[A-Za-z0-9+/=]+/g, "$1")
        .replace(/(\[\\?"\$\\?",\\?"\$L[0-9a-z]+\\?",\\?")[A-Za-z0-9_-]{16,}/g, "$1")
        .replaceAll(word, "WORD");
    // Each probe beside an unknown path of the same shape (the distinctive word swapped for one of its length).
    const probes: [string, string][] = [
      ["/admin", "/zzzzz"],
      ["/admin/users", "/zzzzz/users"],
      ["/admin/users/00000000-0000-4000-8000-000000000000", "/zzzzz/users/00000000-0000-4000-8000-000000000000"],
      ["/admin/ai-routes?x=1", "/zzzzz/ai-routes?x=1"],
      ["/%61dmin/users", "/%7Azzzz/users"],
    ];
    const visitor = new Client(server.baseUrl);
    await visitor.signIn("curious@example.com");
    const { client: operator } = await operatorClient("boss-probe", "boss@example.com");
    // A client-side navigation's request: the RSC payload of the page, whatever tree the browser holds.
    const rscInit = { headers: { rsc: "1" } };
    for (const client of [new Client(server.baseUrl), visitor]) {
      for (const [probe, unknown] of probes) {
        for (const rsc of [false, true]) {
          const init = rsc ? rscInit : {};
          const a = await client.fetch(probe, init);
          const u = await client.fetch(unknown, init);
          const what = `${probe}${rsc ? " (RSC)" : ""}`;
          expect(a.status, what).toBe(404);
          expect(u.status, what).toBe(404);
          expect(headersOf(a), what).toEqual(headersOf(u));
          const [ta, tu] = [
            normalize(await a.text(), "admin").replaceAll("%61dmin", "WORD"),
            normalize(await u.text(), "zzzzz").replaceAll("%7Azzzz", "WORD"),
          ];
          expect(ta, what).not.toContain("Operator console");
          expect(ta, what).toBe(tu);
        }
      }
    }
    // The console's own path, asked directly (not through the proxy's rewrite), is nobody's console,
    // operators included: the not-found page.
    for (const client of [new Client(server.baseUrl), visitor, operator]) {
      for (const path of ["/_console", "/_console/users", "/%5Fconsole/users"]) {
        const res = await client.fetch(path, { headers: { "x-console-access": "guessed" } });
        expect(res.status, path).toBe(404);
        const html = await res.text();
        expect(html, path).toContain("<title>Page not found");
        expect(html, path).not.toContain("Operator console");
      }
    }
    // The operator reaches the console through /admin.
    const page = await operator.fetch("/admin/users");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Operator console");
  });

  it("closes the console to an operator the moment they are locked", async () => {
    const { client, id } = await operatorClient("boss-lock", "boss@example.com");
    expect((await client.fetch("/admin")).status).toBe(200);
    const lock = await admin(`/api/admin/users/${id}/lock`, { method: "POST", body: JSON.stringify({ reason: "testing the lock" }) });
    expect(lock.status).toBe(200);
    expect((await client.fetch("/admin")).status).toBe(404);
    expect((await client.fetch("/api/admin/metrics/summary")).status).toBe(404);
    await admin(`/api/admin/users/${id}/unlock`, { method: "POST", body: JSON.stringify({ reason: "testing the lock" }) });
  });
});
