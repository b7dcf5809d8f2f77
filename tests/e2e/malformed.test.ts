import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { describe, expect, inject, it } from "vitest";
import { Client } from "./client";

/**
 * Malformed requests over HTTP against the production server: what the framework sees before any
 * handler (path encoding, unknown paths) and what a parser sees mid-stream (a truncated multipart
 * body). Every answer is JSON `{ error }` with our headers; nothing escapes as an uncaught exception.
 */
const baseUrl = inject("baseUrl");
const serverLog = inject("serverLog");

/** Sends a path exactly as written (fetch would normalise some escapes). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; type: string; body: string; headers: Record<string, unknown> }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: text, headers: res.headers }),
      );
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const ID_ROUTES = ["/api/files/", "/api/files/x/content?token=t&expires=1", "/api/ai/rag/conversations/"];

describe("malformed requests", () => {
  it("bad %-escapes in a path parameter: JSON 404 with our headers, on every [id] route, GET and DELETE, with or without a session", async () => {
    const client = new Client(baseUrl);
    await client.signIn("malformed@example.com");
    for (const escape of ["%ff", "%E0%A4%A", "%c0%af"]) {
      for (const route of ID_ROUTES) {
        const path = route.includes("/x/") ? route.replace("/x/", `/${escape}/`) : `${route}${escape}`;
        for (const method of ["GET", "DELETE"]) {
          for (const cookie of [undefined, client.cookieHeader()]) {
            const res = await raw(method, path, cookie ? { cookie } : {});
            const label = `${method} ${path} ${cookie ? "session" : "anonymous"}`;
            expect(res.status, label).toBe(404);
            expect(res.type, label).toContain("application/json");
            expect(JSON.parse(res.body).error, label).toEqual(expect.any(String));
            expect(res.headers["x-request-id"], label).toBeTruthy();
          }
        }
      }
    }
  });

  it("an unknown /api path answers JSON 404 for every method, never the HTML not-found page", async () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const res = await raw(
        method,
        "/api/no-such-route",
        method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" },
        method === "GET" || method === "DELETE" ? undefined : "{}",
      );
      expect(res.status, method).toBe(404);
      expect(res.type, method).toContain("application/json");
      expect(JSON.parse(res.body), method).toEqual({ error: "Not found: no API endpoint at /api/no-such-route", code: "not_found" });
    }
  });

  it("NUL and lone surrogates reach no database: 404 for an id, 400 for text", async () => {
    const client = new Client(baseUrl);
    await client.signIn("nul@example.com");
    expect((await client.json("/api/ai/rag/conversations/%00")).status).toBe(404);
    const del = await client.json("/api/ai/rag/conversations?id=%00", { method: "DELETE" });
    expect(del.status).toBe(400);
    for (const body of ['{"question":"a\\u0000b"}', '{"question":"q","conversationId":"\\u0000"}', '{"question":"a\\ud800b"}']) {
      const res = await client.json("/api/ai/rag/ask", { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(res.status, body).toBe(400);
      expect(res.body.error, body).toMatch(/NUL characters or unpaired surrogates/);
    }
  });

  it("40 truncated multipart uploads to speech-to-text: 400 each, and no uncaught exception in the server", async () => {
    const client = new Client(baseUrl);
    await client.signIn("truncated@example.com");
    const before = readFileSync(serverLog, "utf8").length;
    const body =
      '--zzz\r\nContent-Disposition: form-data; name="audio"; filename="a.webm"\r\nContent-Type: audio/webm\r\n\r\n\u001aE\u00df\u00a3 partial';
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        client.json("/api/ai/speech-to-text", { method: "POST", headers: { "content-type": "multipart/form-data; boundary=zzz" }, body }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(400));
    await new Promise((r) => setTimeout(r, 300));
    const log = readFileSync(serverLog, "utf8").slice(before);
    expect(log).not.toMatch(/uncaughtException|Unexpected end of form/);
  });
});
