import { randomUUID } from "node:crypto";
import { svixHeaders } from "@/tests/helpers/svix";
import { afterAll, describe, expect, it } from "vitest";
import { POST as WEBHOOK } from "@/app/api/webhooks/email/route";
import { closeDb, db } from "@/lib/db/client";
import { call } from "@/tests/helpers/http";

afterAll(closeDb);

const secret = () => process.env.EMAIL_WEBHOOK_SECRET as string;

function signed(payload: unknown, options: { id?: string; secret?: string; at?: Date; ip?: string } = {}) {
  const raw = JSON.stringify(payload);
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  return {
    id,
    request: {
      method: "POST",
      path: "/api/webhooks/email",
      rawBody: raw,
      headers: {
        "content-type": "application/json",
        ...svixHeaders(options.secret ?? secret(), raw, { id, at }),
        ...(options.ip ? { "x-forwarded-for": options.ip } : {}),
      },
    },
  };
}

const event = (type: string, emailId: string) => ({
  type,
  created_at: new Date().toISOString(),
  data: {
    email_id: emailId,
    from: "App <no-reply@app.test>",
    to: ["user@example.com"],
    subject: "Hi",
    created_at: new Date().toISOString(),
  },
});

async function sentLog(status = "sent") {
  const providerMessageId = randomUUID();
  const row = await (
    await db()
  ).emailLog.create({
    data: {
      to: "user@example.com",
      from: "App <no-reply@app.test>",
      subject: "Hi",
      type: "notification",
      status,
      provider: "resend",
      providerMessageId,
    },
  });
  return row;
}

const statusOf = async (id: string) => (await (await db()).emailLog.findUniqueOrThrow({ where: { id } })).status;

describe("POST /api/webhooks/email", () => {
  it.each(["email.delivered", "email.bounced", "email.complained"])(
    "%s updates the log found by the provider's message id",
    async (type) => {
      const log = await sentLog();
      const { request } = signed(event(type, log.providerMessageId!));
      const res = await call(WEBHOOK, request);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, processed: type });
      const row = await (await db()).emailLog.findUniqueOrThrow({ where: { id: log.id } });
      expect(row.status).toBe(type.slice("email.".length));
      expect(row.lastEventAt).toBeInstanceOf(Date);
    },
  );

  it("a duplicate delivery (same svix-id) changes nothing", async () => {
    const log = await sentLog();
    const { id, request } = signed(event("email.delivered", log.providerMessageId!));
    expect((await call(WEBHOOK, request)).status).toBe(200);
    expect(await statusOf(log.id)).toBe("delivered");
    await (await db()).emailLog.update({ where: { id: log.id }, data: { status: "sent" } });
    const again = await call(WEBHOOK, signed(event("email.delivered", log.providerMessageId!), { id }).request);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, processed: "email.delivered" });
    expect(await statusOf(log.id)).toBe("sent");
    expect(await (await db()).webhookDelivery.count({ where: { source: "email", deliveryId: id } })).toBe(1);
  });

  it("never moves a log back: a late delivered after a bounce keeps bounced; a complaint follows delivery", async () => {
    const log = await sentLog();
    await call(WEBHOOK, signed(event("email.bounced", log.providerMessageId!)).request);
    await call(WEBHOOK, signed(event("email.delivered", log.providerMessageId!)).request);
    expect(await statusOf(log.id)).toBe("bounced");

    const other = await sentLog();
    await call(WEBHOOK, signed(event("email.delivered", other.providerMessageId!)).request);
    await call(WEBHOOK, signed(event("email.complained", other.providerMessageId!)).request);
    expect(await statusOf(other.id)).toBe("complained");
  });

  it("acknowledges other event types and unknown messages without changing anything", async () => {
    const log = await sentLog();
    const opened = await call(WEBHOOK, signed(event("email.opened", log.providerMessageId!)).request);
    expect(opened.body).toEqual({ success: true, processed: "email.opened" });
    expect(await statusOf(log.id)).toBe("sent");

    const { id, request } = signed(event("email.delivered", "unknown-message-id"));
    const unknown = await call(WEBHOOK, request);
    expect(unknown.status).toBe(200);
    const delivery = await (await db()).webhookDelivery.findFirstOrThrow({ where: { source: "email", deliveryId: id } });
    expect(delivery.status).toBe("ignored");
  });

  it.each([
    [{ data: { email_id: "x" } }, /type is required/],
    [{ type: "email.delivered", data: {} }, /Invalid email.delivered payload: data.email_id/],
    [{ type: "email.bounced" }, /Invalid email.bounced payload: data/],
    [[1, 2, 3], /type is required/],
  ])("answers 400 for the invalid payload %j", async (payload, message) => {
    const res = await call(WEBHOOK, signed(payload).request);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it("answers 400 when signature headers are missing", async () => {
    const res = await call(WEBHOOK, { method: "POST", rawBody: JSON.stringify(event("email.delivered", "x")) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/Missing signature headers: svix-id, svix-timestamp, svix-signature/);
  });

  it("answers 401 for a wrong signature, a wrong secret or a stale timestamp, and changes nothing", async () => {
    const log = await sentLog();
    const payload = event("email.bounced", log.providerMessageId!);
    const tampered = signed(payload).request;
    tampered.rawBody = JSON.stringify({ ...payload, type: "email.complained" });
    const wrongSecret = signed(payload, { secret: "whsec_" + Buffer.from("another-secret-entirely-0123456").toString("base64") }).request;
    const stale = signed(payload, { at: new Date(Date.now() - 10 * 60_000) }).request;
    for (const request of [tampered, wrongSecret, stale]) {
      const res = await call(WEBHOOK, request);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "Signature verification failed", code: "invalid_signature" });
    }
    expect(await statusOf(log.id)).toBe("sent");
  });

  it("a verified delivery is never counted: 101 signed deliveries from one address all answer 200; forgeries count to 429", async () => {
    const ip = "203.0.113.77";
    for (let i = 0; i < 101; i++) {
      const res = await call(WEBHOOK, signed(event("email.opened", "x"), { ip }).request);
      expect(res.status).toBe(200);
    }
    const forged = () =>
      call(
        WEBHOOK,
        signed(event("email.opened", "x"), { ip, secret: "whsec_" + Buffer.from("not-the-secret-0123456789").toString("base64") }).request,
      );
    for (let i = 0; i < 100; i++) expect((await forged()).status).toBe(401);
    expect((await forged()).status).toBe(429);
    expect((await call(WEBHOOK, signed(event("email.opened", "x"), { ip }).request)).status).toBe(200);
  });
});
