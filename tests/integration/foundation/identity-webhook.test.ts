import { randomUUID } from "node:crypto";
import { svixHeaders } from "@/tests/helpers/svix";
import { afterAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/webhooks/identity/route";
import { closeDb, db } from "@/lib/db/client";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

const SECRET = process.env.IDENTITY_WEBHOOK_SECRET as string;
const OTHER_SECRET = "whsec_b3RoZXItc2VjcmV0LXRoYXQtaXMtbm90LW91cnMtMDEyMw==";

interface UserData {
  id: string;
  email?: string;
  first_name?: string | null;
  last_name?: string | null;
  banned?: boolean;
}

function clerkUser(u: UserData) {
  return {
    id: u.id,
    email_addresses: u.email ? [{ id: `idn_${u.id}`, email_address: u.email }] : [],
    primary_email_address_id: u.email ? `idn_${u.id}` : null,
    first_name: u.first_name ?? null,
    last_name: u.last_name ?? null,
    image_url: null,
    ...(u.banned !== undefined ? { banned: u.banned } : {}),
  };
}

let ipCounter = 0;

/** Signs a payload exactly as svix does and delivers it (each call from its own IP unless given). */
function deliver(
  payload: unknown,
  options: { id?: string; secret?: string; at?: Date; ip?: string; headers?: Record<string, string>; raw?: string } = {},
) {
  const body = options.raw ?? JSON.stringify(payload);
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  return call(POST, {
    method: "POST",
    path: "/api/webhooks/identity",
    rawBody: body,
    headers: {
      "content-type": "application/json",
      ...svixHeaders(options.secret ?? SECRET, body, { id, at }),
      "x-forwarded-for": options.ip ?? `10.1.0.${++ipCounter % 250}`,
      ...options.headers,
    },
  });
}

async function findUser(externalId: string) {
  const prisma = await db();
  return prisma.user.findUnique({ where: { externalId }, include: { creditBalance: true, creditTransactions: true } });
}

describe("POST /api/webhooks/identity", () => {
  it("answers 400 for a correctly signed body that is not JSON, and records nothing", async () => {
    const prisma = await db();
    const before = await prisma.webhookDelivery.count();
    const res = await deliver(null, { raw: "{not json" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Invalid payload: body is not valid JSON", code: "bad_request" });
    expect(await prisma.webhookDelivery.count()).toBe(before);
  });

  it("user.created creates the user with free-tier credits (200)", async () => {
    const res = await deliver({
      type: "user.created",
      data: clerkUser({ id: "user_c1", email: "Created@Example.com", first_name: "Ada", last_name: "Lovelace" }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, type: "user.created", duplicate: false });
    const user = await findUser("user_c1");
    expect(user).toMatchObject({ email: "created@example.com", name: "Ada Lovelace", tier: "free" });
    expect(user?.creditBalance?.subscriptionCredits).toBe(200);
    expect(user?.creditTransactions).toHaveLength(1);
    expect(user?.creditTransactions[0]).toMatchObject({ type: "monthly_reset", amount: 200, balanceAfter: 200 });
  });

  it("user.created for an email that already signed in links that user instead of creating another", async () => {
    const prisma = await db();
    const { user: signedIn } = await signIn("linked@example.com");
    const before = await prisma.user.count();
    const res = await deliver({ type: "user.created", data: clerkUser({ id: "user_first", email: "Linked@example.com" }) });
    expect(res.status).toBe(200);
    expect(res.body.result).toBe("user already existed; linked");
    expect(await prisma.user.count()).toBe(before);
    expect((await findUser("user_first"))?.id).toBe(signedIn.id);
    expect(await prisma.creditTransaction.count({ where: { userId: signedIn.id } })).toBe(1);
  });

  it("user.updated updates email and name", async () => {
    await deliver({ type: "user.created", data: clerkUser({ id: "user_u1", email: "old@example.com", first_name: "Old" }) });
    const res = await deliver({
      type: "user.updated",
      data: clerkUser({ id: "user_u1", email: "new@example.com", first_name: "New", last_name: "Name" }),
    });
    expect(res.status).toBe(200);
    const user = await findUser("user_u1");
    expect(user).toMatchObject({ email: "new@example.com", name: "New Name", lockedAt: null });
  });

  it("user.updated with banned locks the account; unbanning unlocks it", async () => {
    await deliver({ type: "user.created", data: clerkUser({ id: "user_b1", email: "banned@example.com" }) });
    await deliver({ type: "user.updated", data: clerkUser({ id: "user_b1", email: "banned@example.com", banned: true }) });
    expect((await findUser("user_b1"))?.lockedAt).toBeInstanceOf(Date);
    await deliver({ type: "user.updated", data: clerkUser({ id: "user_b1", email: "banned@example.com", banned: false }) });
    expect((await findUser("user_b1"))?.lockedAt).toBeNull();
  });

  it("user.deleted deletes the user and their data", async () => {
    const prisma = await db();
    await deliver({ type: "user.created", data: clerkUser({ id: "user_d1", email: "deleted@example.com" }) });
    const user = await findUser("user_d1");
    expect(user).not.toBeNull();
    await prisma.ragConversation.create({ data: { userId: user!.id, title: "t", tier: "free" } });
    const res = await deliver({ type: "user.deleted", data: { id: "user_d1", deleted: true } });
    expect(res.status).toBe(200);
    expect(await findUser("user_d1")).toBeNull();
    expect(await prisma.creditBalance.count({ where: { userId: user!.id } })).toBe(0);
    expect(await prisma.creditTransaction.count({ where: { userId: user!.id } })).toBe(0);
    expect(await prisma.ragConversation.count({ where: { userId: user!.id } })).toBe(0);
  });

  it("a deleted user's session is signed out everywhere: every session route answers 401", async () => {
    const { GET: status } = await import("@/app/api/user/status/route");
    const { GET: files } = await import("@/app/api/files/route");
    const { GET: history } = await import("@/app/api/credits/history/route");
    const { GET: conversations } = await import("@/app/api/ai/rag/conversations/route");
    const { POST: upload } = await import("@/app/api/upload/route");
    const { POST: chat } = await import("@/app/api/ai/chat/route");
    await deliver({ type: "user.created", data: clerkUser({ id: "user_gone", email: "gone@example.com" }) });
    const { cookie } = await signIn("gone@example.com");
    // Warm: the session works (and its user is known to exist).
    expect((await call(files, { path: "/api/files", cookie })).status).toBe(200);
    expect((await deliver({ type: "user.deleted", data: { id: "user_gone", deleted: true } })).status).toBe(200);
    const answers = await Promise.all([
      call(status, { path: "/api/user/status", cookie }),
      call(files, { path: "/api/files", cookie }),
      call(history, { path: "/api/credits/history", cookie }),
      call(conversations, { path: "/api/ai/rag/conversations", cookie }),
      call(upload, { method: "POST", path: "/api/upload?filename=a.txt&filesize=1&filetype=text/plain", cookie, rawBody: "a" }),
      call(chat, { method: "POST", path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "hi" }] } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401]);
    for (const a of answers) expect(a.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });

  it("a duplicate delivery (same svix-id) changes nothing", async () => {
    const id = `msg_${randomUUID()}`;
    await deliver({ type: "user.created", data: clerkUser({ id: "user_dup", email: "dup@example.com" }) });
    const update = { type: "user.updated", data: clerkUser({ id: "user_dup", email: "dup@example.com", first_name: "First" }) };
    expect((await deliver(update, { id })).body.duplicate).toBe(false);
    const prisma = await db();
    await prisma.user.update({ where: { externalId: "user_dup" }, data: { name: "Changed since" } });
    const again = await deliver(update, { id });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ received: true, duplicate: true });
    expect((await findUser("user_dup"))?.name).toBe("Changed since");
    expect(await prisma.webhookDelivery.count({ where: { source: "identity", deliveryId: id } })).toBe(1);
  });

  it("answers 400 naming the missing signature headers, before reading anything", async () => {
    const res = await call(POST, {
      method: "POST",
      path: "/api/webhooks/identity",
      rawBody: JSON.stringify({ type: "user.created", data: clerkUser({ id: "user_nohdr", email: "nohdr@example.com" }) }),
      headers: { "content-type": "application/json", "svix-id": "msg_1", "x-forwarded-for": "10.2.0.1" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Missing signature headers: svix-timestamp, svix-signature", code: "bad_request" });
    expect(await findUser("user_nohdr")).toBeNull();
  });

  it("answers 401 for a bad signature, the wrong secret, a tampered body or a stale timestamp", async () => {
    const event = { type: "user.created", data: clerkUser({ id: "user_bad", email: "bad@example.com" }) };
    const bad = await deliver(event, { headers: { "svix-signature": "v1,aW52YWxpZC1zaWduYXR1cmU=" } });
    const wrongSecret = await deliver(event, { secret: OTHER_SECRET });
    const stale = await deliver(event, { at: new Date(Date.now() - 10 * 60 * 1000) });
    // Signed for one body, delivered with another.
    const tampered = await call(POST, {
      method: "POST",
      path: "/api/webhooks/identity",
      rawBody: JSON.stringify({ ...event, data: { ...event.data, first_name: "Mallory" } }),
      headers: { ...svixHeaders(SECRET, JSON.stringify(event), { id: "msg_tampered" }), "x-forwarded-for": "10.2.0.2" },
    });
    for (const res of [bad, wrongSecret, stale, tampered]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "Signature verification failed", code: "invalid_signature" });
    }
    expect(await findUser("user_bad")).toBeNull();
  });

  it("answers 401 when no secret is configured, without exposing configuration details", async () => {
    const saved = process.env.IDENTITY_WEBHOOK_SECRET;
    delete process.env.IDENTITY_WEBHOOK_SECRET;
    try {
      const res = await deliver({ type: "user.created", data: clerkUser({ id: "user_nosecret", email: "ns@example.com" }) });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/^Signature verification failed/);
      expect(res.text).not.toContain("whsec_");
    } finally {
      process.env.IDENTITY_WEBHOOK_SECRET = saved;
    }
  });

  it("answers 400 for a signed but invalid payload of a known type, and 200 (ignored) for an unknown type", async () => {
    const invalid = await deliver({ type: "user.created", data: { email_addresses: [] } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatch(/^Invalid user.created payload: data.id/);
    const unknown = await deliver({ type: "session.created", data: { id: "sess_1" } });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ type: "session.created", result: "event type ignored" });
  });

  it("counts only failed verifications: 100 unsigned requests from an address, then its forgeries answer 429 and its signed deliveries 200", async () => {
    const ip = "10.9.9.9";
    for (let i = 0; i < 100; i++) {
      const res = await call(POST, { method: "POST", path: "/api/webhooks/identity", rawBody: "{}", headers: { "x-forwarded-for": ip } });
      expect(res.status).toBe(400);
    }
    const forged = await deliver(
      { type: "user.created", data: clerkUser({ id: "user_forged", email: "forged@example.com" }) },
      { ip, secret: OTHER_SECRET },
    );
    expect(forged.status).toBe(429);
    expect(forged.body.error).toMatch(/^Rate limit exceeded/);
    expect(forged.headers.get("x-ratelimit-limit")).toBe("100");
    expect(forged.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(await findUser("user_forged")).toBeNull();
    // A verified delivery from that address is processed and not counted.
    const signed = await deliver({ type: "user.created", data: clerkUser({ id: "user_limited", email: "limited@example.com" }) }, { ip });
    expect(signed.status).toBe(200);
    expect(signed.headers.get("x-ratelimit-limit")).toBeNull();
    expect(await findUser("user_limited")).not.toBeNull();
  });

  it("answers 405 with Allow: POST for other methods", async () => {
    const res = await call(GET, { path: "/api/webhooks/identity" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});
