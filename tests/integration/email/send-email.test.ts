import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as SEND_GET, POST as SEND } from "@/app/api/email/send/route";
import { POST as TEST_EMAIL } from "@/app/api/email/test/route";
import { closeDb, db } from "@/lib/db/client";
import { listLocalMail } from "@/lib/email/local-mailbox";
import { DEFAULT_EMAIL_FROM } from "@/lib/email/mailer";
import { sendEmail } from "@/lib/email/send-email";
import { setEnv } from "@/tests/helpers/env";
import { call, sessionCookie, signIn } from "@/tests/helpers/http";
import { startResendStub, type ResendStub } from "@/tests/helpers/resend-stub";

afterAll(closeDb);

const emailLog = async (id: string) => (await db()).emailLog.findUniqueOrThrow({ where: { id } });

describe("POST /api/email/send (local mailbox)", () => {
  it("answers 401 without a session", async () => {
    const res = await call(SEND, { body: { to: "a@example.com", subject: "s", text: "t", type: "notification" } });
    expect(res.status).toBe(401);
  });

  it("sends to the user's own address into the local mailbox and logs it as sent", async () => {
    const { user, cookie } = await signIn();
    const res = await call(SEND, {
      cookie,
      body: { to: user.email!.toUpperCase(), subject: "Your report", html: "<p>Ready</p>", text: "Ready", type: "notification" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, messageId: expect.stringMatching(/^local-/), emailLogId: expect.any(String) });
    expect(res.headers.get("x-ratelimit-limit")).toBe("5");
    const row = await emailLog(res.body.emailLogId);
    expect(row).toMatchObject({
      userId: user.id,
      status: "sent",
      provider: "local",
      providerMessageId: res.body.messageId,
      type: "notification",
      subject: "Your report",
      from: DEFAULT_EMAIL_FROM,
    });
    const mail = (await listLocalMail()).find((m) => m.messageId === res.body.messageId);
    expect(mail).toMatchObject({ subject: "Your report", html: "<p>Ready</p>", text: "Ready", emailLogId: res.body.emailLogId });
  });

  it.each([
    [{ subject: "s", text: "t", type: "notification" }, /to: is required/],
    [{ to: "not-an-address", subject: "s", text: "t", type: "notification" }, /to: must be an email address/],
    [{ to: "me@example.com", text: "t", type: "notification" }, /subject: is required/],
    [{ to: "me@example.com", subject: "a\r\nBcc: x@evil.test", text: "t", type: "notification" }, /subject: must be one line/],
    [{ to: "me@example.com", subject: "s", type: "notification" }, /html or text is required/],
    [{ to: "me@example.com", subject: "s", html: "  ", type: "notification" }, /html or text is required/],
    [{ to: "me@example.com", subject: "s", text: "t", type: "" }, /type: must be one of welcome, notification/],
    [{ to: "me@example.com", subject: "s", text: "t", type: "spam" }, /type: must be one of/],
  ])("answers 400 for %j", async (body, message) => {
    const { cookie } = await signIn();
    const res = await call(SEND, { cookie, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it("type is optional: an email without it is sent and logged as a notification", async () => {
    const { user, cookie } = await signIn();
    const res = await call(SEND, { cookie, body: { to: user.email!, subject: "No type", text: "Hello" } });
    expect(res.status).toBe(200);
    expect(await emailLog(res.body.emailLogId)).toMatchObject({ type: "notification", subject: "No type" });
  });

  it("answers 400 for a recipient outside the policy (not an open relay) and sends nothing", async () => {
    const { user, cookie } = await signIn();
    const res = await call(SEND, { cookie, body: { to: "victim@elsewhere.test", subject: "s", text: "t", type: "notification" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/Recipient not allowed/);
    expect(await (await db()).emailLog.count({ where: { userId: user.id } })).toBe(0);
  });

  it("allows domains listed in EMAIL_ALLOWED_RECIPIENT_DOMAINS", async () => {
    const restore = setEnv({ EMAIL_ALLOWED_RECIPIENT_DOMAINS: "team.test, @partner.test" });
    try {
      const { cookie } = await signIn();
      for (const to of ["ops@team.test", "Someone@Partner.test"]) {
        const res = await call(SEND, { cookie, body: { to, subject: "s", text: "t", type: "notification" } });
        expect(res.status, to).toBe(200);
      }
      const sub = await call(SEND, { cookie, body: { to: "x@evil.team.test", subject: "s", text: "t", type: "notification" } });
      expect(sub.status).toBe(400);
    } finally {
      restore();
    }
  });

  it("answers 401 when the session's user does not exist (a deleted user's session is no session)", async () => {
    const cookie = await sessionCookie({ id: "00000000-0000-4000-8000-000000000000", email: "ghost@example.com" });
    const res = await call(SEND, { cookie, body: { to: "ghost@example.com", subject: "s", text: "t", type: "notification" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });

  it("answers 429 after 5 sends per user in the hour", async () => {
    const { user, cookie } = await signIn();
    const body = { to: user.email, subject: "s", text: "t", type: "notification" };
    for (let i = 0; i < 5; i++) expect((await call(SEND, { cookie, body })).status).toBe(200);
    const res = await call(SEND, { cookie, body });
    expect(res.status).toBe(429);
    expect(await (await db()).emailLog.count({ where: { userId: user.id } })).toBe(5);
  });

  it("answers 405 for GET", async () => {
    const res = await call(SEND_GET, { path: "/api/email/send" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("email through Resend (local HTTP stub)", () => {
  let stub: ResendStub;
  let restore: () => void;
  beforeAll(async () => {
    stub = await startResendStub();
    restore = setEnv({ ...stub.env, EMAIL_FROM: "Acme <hello@acme.test>" });
  });
  afterAll(async () => {
    restore?.();
    await stub?.close();
  });
  afterEach(() => stub.failNext(200, 0));

  it("sends through Resend: messageId is Resend's id, the log keeps it", async () => {
    const { user, cookie } = await signIn();
    const res = await call(SEND, { cookie, body: { to: user.email, subject: "Hello", html: "<b>Hi</b>", type: "welcome" } });
    expect(res.status).toBe(200);
    const got = stub.sent.at(-1)!;
    expect(res.body.messageId).toBe(got.id);
    expect(got.body).toMatchObject({ from: "Acme <hello@acme.test>", to: [user.email], subject: "Hello", html: "<b>Hi</b>" });
    expect(got.headers.authorization).toBe(`Bearer ${stub.apiKey}`);
    expect(got.headers["idempotency-key"]).toBe(`email-log-${res.body.emailLogId}`);
    expect(await emailLog(res.body.emailLogId)).toMatchObject({
      status: "sent",
      provider: "resend",
      providerMessageId: got.id,
      from: "Acme <hello@acme.test>",
    });
  });

  it("answers 500 and logs the message as failed when Resend refuses it", async () => {
    const { user, cookie } = await signIn();
    stub.failNext(500);
    const res = await call(SEND, { cookie, body: { to: user.email, subject: "Hello", text: "Hi", type: "notification" } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "The email could not be sent", code: "upstream_failed" });
    const [row] = await (await db()).emailLog.findMany({ where: { userId: user.id } });
    expect(row.status).toBe("failed");
    expect(row.providerMessageId).toBeNull();
    expect(row.error).toMatch(/HTTP 500/);
  });

  it("a wrong API key fails the send without leaking the key", async () => {
    const restoreKey = setEnv({ RESEND_API_KEY: "re_wrong_key" });
    try {
      const { user, cookie } = await signIn();
      const res = await call(SEND, { cookie, body: { to: user.email, subject: "Hello", text: "Hi", type: "notification" } });
      expect(res.status).toBe(500);
      expect(res.text).not.toContain("re_wrong_key");
      const [row] = await (await db()).emailLog.findMany({ where: { userId: user.id } });
      expect(row.status).toBe("failed");
      expect(row.error).toMatch(/HTTP 403/);
    } finally {
      restoreKey();
    }
  });

  it("sendEmail (the contract other domains call) sends system mail without a user", async () => {
    const result = await sendEmail({
      to: "billing@customer.test",
      subject: "Payment failed",
      text: "Please update your card",
      type: "payment_failed",
    });
    expect(result.messageId).toBe(stub.sent.at(-1)!.id);
    expect(await emailLog(result.emailLogId)).toMatchObject({ userId: null, type: "payment_failed", status: "sent", provider: "resend" });
    await expect(sendEmail({ to: "x@y.test", subject: "s", type: "receipt" })).rejects.toThrow(/html or text/);
  });

  it("the test endpoint goes through Resend too", async () => {
    const res = await call(TEST_EMAIL, { body: { email: "dev@anywhere.test" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, messageId: stub.sent.at(-1)!.id, provider: "resend" });
    expect(stub.sent.at(-1)!.body.to).toEqual(["dev@anywhere.test"]);
  });
});

describe("POST /api/email/test", () => {
  it("sends a test email without a session outside production", async () => {
    const res = await call(TEST_EMAIL, { body: { email: "someone@example.com" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      messageId: expect.stringMatching(/^local-/),
      emailLogId: expect.any(String),
      provider: "local",
    });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    const row = await emailLog(res.body.emailLogId);
    expect(row).toMatchObject({ type: "test", to: "someone@example.com", status: "sent", userId: null });
    expect((await listLocalMail()).some((m) => m.messageId === res.body.messageId && m.subject === "Test email")).toBe(true);
  });

  it("records the signed-in user when there is one", async () => {
    const { user, cookie } = await signIn();
    const res = await call(TEST_EMAIL, { cookie, body: { email: user.email } });
    expect((await emailLog(res.body.emailLogId)).userId).toBe(user.id);
  });

  it.each([
    [undefined, "email is required"],
    [{}, "email is required"],
    [{ email: "nope" }, "email must be an email address"],
  ])("answers 400 for body %j", async (body, message) => {
    const res = await call(TEST_EMAIL, { method: "POST", body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: message, code: "validation_failed" });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const res = await call(TEST_EMAIL, { method: "POST", rawBody: "{email:", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
  });

  it("answers 403 in production, before looking at the body", async () => {
    const restore = setEnv({ APP_ENV: "production", CRON_SECRET: "cron-secret-for-test" });
    try {
      const sent = await call(TEST_EMAIL, { body: { email: "someone@example.com" } });
      expect(sent.status).toBe(403);
      expect(sent.body.error).toMatch(/only outside production/);
      expect((await call(TEST_EMAIL, { method: "POST" })).status).toBe(403);
    } finally {
      restore();
    }
  });
});
