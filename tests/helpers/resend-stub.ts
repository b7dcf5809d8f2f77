import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubbedEmail {
  id: string;
  headers: IncomingMessage["headers"];
  body: { from: string; to: string[] | string; subject: string; html?: string; text?: string; [k: string]: unknown };
}

export interface ResendStub {
  baseUrl: string;
  apiKey: string;
  /** Messages accepted, in order. */
  sent: StubbedEmail[];
  /** The next N requests answer this error (Resend's error shape; by default a 5xx-style application_error). */
  failNext: (status: number, times?: number, error?: { name: string; message: string }) => void;
  env: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * A local HTTP peer speaking Resend's wire protocol for POST /emails: Bearer auth (401
 * missing_api_key / 403 invalid_api_key), 422 validation_error on a missing field, 200 `{ id }`, and
 * Idempotency-Key replay (same key returns the same id).
 */
export async function startResendStub(apiKey = "re_test_0123456789"): Promise<ResendStub> {
  const sent: StubbedEmail[] = [];
  const byIdempotencyKey = new Map<string, string>();
  let failures: { status: number; remaining: number; name: string; message: string } | null = null;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || req.url !== "/emails") return reply(404, { statusCode: 404, name: "not_found", message: "Not found" });
    const auth = req.headers.authorization;
    if (!auth) return reply(401, { statusCode: 401, name: "missing_api_key", message: "Missing API key in the authorization header." });
    if (auth !== `Bearer ${apiKey}`) return reply(403, { statusCode: 403, name: "invalid_api_key", message: "API key is invalid" });
    if (failures && failures.remaining > 0) {
      failures.remaining--;
      return reply(failures.status, { statusCode: failures.status, name: failures.name, message: failures.message });
    }
    let body: StubbedEmail["body"];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return reply(400, { statusCode: 400, name: "validation_error", message: "Invalid JSON" });
    }
    for (const field of ["from", "to", "subject"] as const) {
      if (!body[field]) return reply(422, { statusCode: 422, name: "validation_error", message: `Missing \`${field}\` field.` });
    }
    if (!body.html && !body.text)
      return reply(422, { statusCode: 422, name: "validation_error", message: "Missing `html` or `text` field." });
    const key = req.headers["idempotency-key"] as string | undefined;
    if (key && byIdempotencyKey.has(key)) return reply(200, { id: byIdempotencyKey.get(key) });
    const id = randomUUID();
    if (key) byIdempotencyKey.set(key, id);
    sent.push({ id, headers: req.headers, body });
    reply(200, { id });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    apiKey,
    sent,
    failNext: (status, times = 1, error = { name: "application_error", message: "Simulated failure" }) => {
      failures = { status, remaining: times, ...error };
    },
    env: { RESEND_API_KEY: apiKey, RESEND_BASE_URL: baseUrl },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
