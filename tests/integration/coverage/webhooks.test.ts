import { randomUUID } from "node:crypto";
import { svixHeaders } from "@/tests/helpers/svix";
import { afterAll, describe, expect, it } from "vitest";
import * as emailWebhook from "@/app/api/webhooks/email/route";
import * as identityWebhook from "@/app/api/webhooks/identity/route";
import * as paymentWebhook from "@/app/api/webhooks/payment/route";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, type CallOptions } from "@/tests/helpers/http";

afterAll(closeDb);

function signedRaw(raw: string, secret = process.env.EMAIL_WEBHOOK_SECRET as string): CallOptions & { id: string } {
  const id = `msg_${randomUUID()}`;
  const at = new Date();
  return {
    id,
    method: "POST",
    path: "/api/webhooks/email",
    rawBody: raw,
    headers: {
      "content-type": "application/json",
      ...svixHeaders(secret, raw, { id, at }),
    },
  };
}

const deliveries = async (deliveryId: string) => (await db()).webhookDelivery.count({ where: { source: "email", deliveryId } });

describe("POST /api/webhooks/email: the cases the email suite leaves out", () => {
  it("400 invalid payload for a correctly signed body that is not JSON (the signature is valid, so not 401); nothing recorded", async () => {
    const request = signedRaw("{not json");
    const res = await call(emailWebhook.POST, request);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Invalid payload: body is not valid JSON", code: "bad_request" });
    expect(await deliveries(request.id)).toBe(0);
  });

  it("401 when EMAIL_WEBHOOK_SECRET is not configured, without naming the setting's value; nothing recorded", async () => {
    const raw = JSON.stringify({ type: "email.delivered", created_at: new Date().toISOString(), data: { email_id: randomUUID() } });
    const request = signedRaw(raw);
    const restore = setEnv({ EMAIL_WEBHOOK_SECRET: undefined });
    try {
      const res = await call(emailWebhook.POST, request);
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/^Signature verification failed/);
      expect(res.text).not.toContain("whsec_");
    } finally {
      restore();
    }
    expect(await deliveries(request.id)).toBe(0);
    // The same delivery verifies once the secret is back: the 401 came from the missing secret.
    expect((await call(emailWebhook.POST, request)).status).toBe(200);
  });

  it("413 for a body over 1 MiB on every webhook route, correctly signed or not, before anything is verified or recorded", async () => {
    const raw = JSON.stringify({ type: "email.delivered", created_at: new Date().toISOString(), data: { email_id: randomUUID(), pad: "x".repeat(1024 * 1024) } });
    const request = signedRaw(raw);
    const res = await call(emailWebhook.POST, request);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "Request body too large: the limit is 1048576 bytes", code: "payload_too_large" });
    expect(await deliveries(request.id)).toBe(0);
    for (const [route, path] of [
      [identityWebhook.POST, "/api/webhooks/identity"],
      [paymentWebhook.POST, "/api/webhooks/payment"],
    ] as const) {
      const answer = await call(route, { method: "POST", path, rawBody: raw, headers: { "content-type": "application/json" } });
      expect(answer.status, path).toBe(413);
    }
  });
});
