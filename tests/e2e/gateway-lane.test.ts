import { connect } from "node:net";
import { describe, expect, inject, it } from "vitest";
import { Client } from "./client";

/**
 * Which path answered the hot AI routes on the suite's server: the gateway lane by default
 * (lib/server/gateway-lane.ts), Next's router under E2E_GATEWAY_LANE=false (npm run
 * test:e2e:next-router runs the AI suites that way). Next's router marks a route handler's answer
 * with its router headers in Vary; the lane does not. Every other AI test of the suite runs on
 * whichever path this asserts, so both are covered by the same tests.
 */
const baseUrl = inject("baseUrl");
const laned = process.env.E2E_GATEWAY_LANE !== "false";

describe(`hot AI routes answered by ${laned ? "the gateway lane" : "Next's router"}`, () => {
  it("POST /api/ai/chat, /api/ai/stream and /v1/chat/completions, GET /api/user/status and /api/ai/usage; other routes always by Next", async () => {
    const client = new Client(baseUrl);
    expect((await client.signIn("gateway-lane@example.com")).status).toBe(200);
    const body = JSON.stringify({ messages: [{ role: "user", content: "hello lane" }] });
    const post = (path: string, headers: Record<string, string> = {}) =>
      client.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    const routerVary = (res: Response) => /next-router-state-tree/.test(res.headers.get("vary") ?? "");

    const chat = await post("/api/ai/chat");
    expect(chat.status).toBe(200);
    expect((await chat.json()).cost).toBe(15);
    expect(routerVary(chat)).toBe(!laned);
    // The same security headers whichever path answered.
    for (const name of [
      "x-content-type-options",
      "x-frame-options",
      "referrer-policy",
      "permissions-policy",
      "cross-origin-opener-policy",
      "x-request-id",
    ]) {
      expect(chat.headers.get(name), name).toBeTruthy();
    }
    const stream = await post("/api/ai/stream");
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await stream.text()).toMatch(/data: \[DONE\]\n\n$/);
    expect(routerVary(stream)).toBe(!laned);
    const v1 = await post("/v1/chat/completions", { authorization: "Bearer sk-not-a-key" });
    expect(v1.status).toBe(401);
    expect((await v1.json()).error.code).toBe("invalid_api_key");
    expect(routerVary(v1)).toBe(!laned);

    // The plain reads a dashboard or a client polls: GET, laned too.
    for (const path of ["/api/user/status", "/api/ai/usage"]) {
      const read = await client.fetch(path);
      expect(read.status, path).toBe(200);
      expect(routerVary(read), path).toBe(!laned);
    }
    // Not laned: another route, another method.
    expect(routerVary(await client.fetch("/api/keys"))).toBe(true);
    expect(routerVary(await client.fetch("/api/user/status", { method: "HEAD" }))).toBe(true);
    const put = await client.fetch("/api/ai/chat", { method: "PUT", headers: { "content-type": "application/json" }, body });
    expect(put.status).toBe(405);
    expect(routerVary(put)).toBe(true);
  });

  it("a cross-site write with the session cookie is refused the same way, and nothing is charged", async () => {
    const client = new Client(baseUrl);
    await client.signIn("gateway-lane-csrf@example.com");
    const before = (await client.json<{ remaining: number }>("/api/ai/usage")).body.remaining;
    const res = await client.json<{ error: string; code: string }>("/api/ai/chat", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/Cross-site request refused/);
    expect((await client.json<{ remaining: number }>("/api/ai/usage")).body.remaining).toBe(before);
  });

  // A client that asks to close its connection gets it closed after the stream (the answer used to say
  // "keep-alive" and hold it for the server's keep-alive timeout). On the lane, a charged stream's
  // first text is there before its answer begins, and one system call carries the headers and that
  // event, so the client's first read holds both (two writes arrived as two reads). Next's router
  // writes its own way.
  it("a stream honours the client's Connection: close; the lane sends its headers with its first event", async () => {
    const client = new Client(baseUrl);
    await client.signIn("gateway-lane-first-write@example.com");
    const url = new URL(baseUrl);
    const body = JSON.stringify({ messages: [{ role: "user", content: "one write" }] });
    const reads: string[] = [];
    const started = Date.now();
    let lastRead = 0;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /api/ai/stream HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${client.cookieHeader()}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      socket.setEncoding("utf8");
      socket.on("data", (text: string) => {
        reads.push(text);
        lastRead = Date.now();
      });
      socket.on("end", resolve);
      socket.on("error", reject);
    });
    const all = reads.join("");
    const head = all.slice(0, all.indexOf("\r\n\r\n"));
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\nconnection: close(\r\n|$)/i);
    expect(all).toMatch(/data: \[DONE\]\n\n\r\n0\r\n\r\n$/);
    // Closed with the answer's end, not at the keep-alive timeout (5 s).
    expect(Date.now() - lastRead).toBeLessThan(2000);
    expect(lastRead).toBeGreaterThanOrEqual(started);
    if (laned) expect(reads[0]).toMatch(/\r\n\r\n[0-9a-f]+\r\ndata: \{"type":"text","text":/);
  });
});
