import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * The gateway lane (lib/server/gateway-lane.ts) and Next's router must answer the laned routes (the
 * three hot AI routes, the three plain reads) alike, whatever a framework upgrade changes under the lane: two servers from the same build, one with
 * the lane and one without (GATEWAY_LANE=false), get the same requests (good, refused at each step of
 * the wrapper, malformed, too large, on a kept-alive connection), and their answers are compared:
 * status, headers (names, and values where they are not per request), and the body's shape (JSON
 * keys and types; an event stream's events).
 */
const ADMIN_TOKEN = "lane-parity-admin-token-0123456789abcdef";
let laned: RunningServer;
let routed: RunningServer;

async function startBoth(): Promise<void> {
  // Each server says which path it takes, whatever the suite's E2E_GATEWAY_LANE says.
  const saved = process.env.E2E_GATEWAY_LANE;
  delete process.env.E2E_GATEWAY_LANE;
  try {
    [laned, routed] = await Promise.all([
      startServer({ GATEWAY_LANE: "true", ADMIN_API_TOKEN: ADMIN_TOKEN }, { dataDirPrefix: "svc-parity-lane-" }),
      startServer({ GATEWAY_LANE: "false", ADMIN_API_TOKEN: ADMIN_TOKEN }, { dataDirPrefix: "svc-parity-next-" }),
    ]);
  } finally {
    if (saved !== undefined) process.env.E2E_GATEWAY_LANE = saved;
  }
}

beforeAll(startBoth, 240_000);
afterAll(async () => {
  for (const s of [laned, routed]) {
    await s?.stop();
    if (s) removeDir(s.dataDir);
  }
});

/**
 * Headers whose values differ per request or by transport, not by path. Compression is transport: the
 * lane gzips JSON from 1 KB (below that it costs CPU for nothing), Next any size; fetch decodes both.
 */
const PER_REQUEST = new Set([
  "date",
  "x-request-id",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "set-cookie",
  "etag",
]);

/** The shape of a JSON value: its keys and the types of their values (not the values). */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shapeOf(v)]),
    );
  return value === null ? "null" : typeof value;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Vary without Next's router tokens (Next adds them to what it routes; they say nothing about the answer). */
function varyOf(value: string | undefined): string {
  return (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v && !/^(rsc|next-router-|next-url)/i.test(v))
    .sort()
    .join(", ");
}

async function answerOf(res: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (PER_REQUEST.has(name)) return;
    headers[name] = name === "vary" ? varyOf(value) : value;
  });
  if (headers.vary === "") delete headers.vary;
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  let body: unknown = text.length > 0 ? "text" : "";
  if (type.startsWith("application/json") && text.length > 0) body = shapeOf(JSON.parse(text));
  else if (type.startsWith("text/event-stream"))
    body = text
      .split("\n\n")
      .filter(Boolean)
      .map((e) => (e.startsWith("event:") ? e.split("\n")[0] : (/"type":"(\w+)"/.exec(e)?.[1] ?? e.slice(0, 12))));
  return { status: res.status, headers, body };
}

interface Case {
  name: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Who asks: a signed-in person (default), nobody, an API key, or a person with no credits left. */
  as?: "person" | "nobody" | "key" | "broke";
}

const chat = JSON.stringify({ messages: [{ role: "user", content: "hello parity" }] });
const v1chat = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello parity" }] });
const v1stream = JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hello parity" }] });
const json = { "content-type": "application/json" };
const big = Buffer.alloc(5 * 1024 * 1024, 0x61);

const CASES: Case[] = [
  { name: "chat", path: "/api/ai/chat", headers: json, body: chat },
  { name: "chat, a query string", path: "/api/ai/chat?x=1", headers: json, body: chat },
  { name: "chat, gzip accepted", path: "/api/ai/chat", headers: { ...json, "accept-encoding": "gzip" }, body: chat },
  { name: "stream", path: "/api/ai/stream", headers: json, body: chat },
  { name: "v1 chat", path: "/v1/chat/completions", headers: json, body: v1chat, as: "key" },
  { name: "v1 stream", path: "/v1/chat/completions", headers: json, body: v1stream, as: "key" },
  { name: "chat, no session", path: "/api/ai/chat", headers: json, body: chat, as: "nobody" },
  { name: "stream, no session", path: "/api/ai/stream", headers: json, body: chat, as: "nobody" },
  { name: "v1, no key", path: "/v1/chat/completions", headers: json, body: v1chat, as: "nobody" },
  {
    name: "v1, a wrong key",
    path: "/v1/chat/completions",
    headers: { ...json, authorization: "Bearer sk-not-a-key" },
    body: v1chat,
    as: "nobody",
  },
  {
    name: "chat, cross-site",
    path: "/api/ai/chat",
    headers: { ...json, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    body: chat,
  },
  { name: "chat, not JSON", path: "/api/ai/chat", headers: json, body: "{not json" },
  { name: "chat, invalid body", path: "/api/ai/chat", headers: json, body: JSON.stringify({ messages: "hi" }) },
  { name: "stream, invalid body", path: "/api/ai/stream", headers: json, body: JSON.stringify({ messages: [] }) },
  { name: "v1, invalid body", path: "/v1/chat/completions", headers: json, body: JSON.stringify({ model: "gpt-4o-mini" }), as: "key" },
  {
    name: "v1, unknown model",
    path: "/v1/chat/completions",
    headers: json,
    body: JSON.stringify({ model: "no-such-model", messages: [{ role: "user", content: "x" }] }),
    as: "key",
  },
  { name: "chat, a form body", path: "/api/ai/chat", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "a=1" },
  { name: "chat, too large (declared)", path: "/api/ai/chat", headers: json, body: big },
  { name: "chat, no credits", path: "/api/ai/chat", headers: json, body: chat, as: "broke" },
  { name: "stream, no credits", path: "/api/ai/stream", headers: json, body: chat, as: "broke" },
  { name: "chat, a trailing slash", path: "/api/ai/chat/", headers: json, body: chat },
  { name: "v1, a trailing slash", path: "/v1/chat/completions/", headers: json, body: v1chat, as: "key" },
  { name: "chat, GET", path: "/api/ai/chat", method: "GET" },
  { name: "v1, GET", path: "/v1/chat/completions", method: "GET", as: "key" },
  { name: "an unknown API path", path: "/api/ai/nothing-here", headers: json, body: chat },
  { name: "status", path: "/api/user/status", method: "GET" },
  { name: "status, a query string", path: "/api/user/status?x=1", method: "GET" },
  { name: "status, no session", path: "/api/user/status", method: "GET", as: "nobody" },
  { name: "status, no credits", path: "/api/user/status", method: "GET", as: "broke" },
  {
    name: "status, cross-site",
    path: "/api/user/status",
    method: "GET",
    headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
  },
  { name: "status, HEAD", path: "/api/user/status", method: "HEAD" },
  { name: "status, POST", path: "/api/user/status", headers: json, body: "{}" },
  { name: "status, a trailing slash", path: "/api/user/status/", method: "GET" },
  { name: "usage", path: "/api/ai/usage", method: "GET" },
  { name: "usage, gzip accepted", path: "/api/ai/usage", method: "GET", headers: { "accept-encoding": "gzip" } },
  { name: "usage, no session", path: "/api/ai/usage", method: "GET", as: "nobody" },
  { name: "models", path: "/v1/models", method: "GET", as: "key" },
  { name: "models, no key", path: "/v1/models", method: "GET", as: "nobody" },
  { name: "models, a wrong key", path: "/v1/models", method: "GET", headers: { authorization: "Bearer sk-not-a-key" }, as: "nobody" },
];

/** A signed-in person, an API key and a person with no credits, on one server. */
async function callersOf(server: RunningServer, tag: string) {
  const person = new Client(server.baseUrl);
  await person.signIn(`parity-${tag}@example.com`);
  const key = await person.json<{ secret: string }>("/api/keys", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ name: "parity" }),
  });
  const broke = new Client(server.baseUrl);
  await broke.signIn(`parity-broke-${tag}@example.com`);
  const session = await broke.json<{ user: { id: string } }>("/api/auth/session");
  const drained = await fetch(`${server.baseUrl}/api/admin/users/${session.body.user.id}/credits`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ amount: -200, bucket: "subscription", reason: "parity: no credits left", idempotencyKey: `parity-${tag}` }),
  });
  expect(drained.status).toBe(200);
  return { person, broke, secret: key.body.secret };
}

/**
 * A body refused for its declared length is answered before it is read, and a server may close the
 * connection then: a client still writing 5 MiB meets EPIPE or ECONNRESET before it reads the answer
 * (an HTTP race, not a difference between the paths). So a "declared" case sends the headers with
 * their Content-Length, writes no body, and reads the answer the servers give on the headers alone.
 */
function sendDeclaredOnly(server: RunningServer, path: string, headers: Record<string, string>, length: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.baseUrl);
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { ...headers, "content-length": String(length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const h = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            for (const v of Array.isArray(value) ? value : [value]) h.append(name, v);
          }
          resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode, headers: h }));
          req.destroy();
        });
      },
    );
    req.on("error", reject);
    req.flushHeaders();
  });
}

async function send(server: RunningServer, callers: Awaited<ReturnType<typeof callersOf>>, c: Case): Promise<Answer> {
  if (c.name.includes("(declared)") && Buffer.isBuffer(c.body)) {
    const headers: Record<string, string> = { ...(c.headers ?? {}) };
    if (c.as === "key") headers.authorization = `Bearer ${callers.secret}`;
    else if (c.as !== "nobody") headers.cookie = (c.as === "broke" ? callers.broke : callers.person).cookieHeader();
    return answerOf(await sendDeclaredOnly(server, c.path, headers, c.body.length));
  }
  return sendOnce(server, callers, c);
}

async function sendOnce(server: RunningServer, callers: Awaited<ReturnType<typeof callersOf>>, c: Case): Promise<Answer> {
  const headers: Record<string, string> = { ...(c.headers ?? {}) };
  const body =
    c.method === "GET" || c.method === "HEAD" || c.body === undefined
      ? undefined
      : typeof c.body === "string"
        ? c.body
        : new Uint8Array(c.body);
  const init = { method: c.method ?? "POST", headers, body };
  if (c.as === "key") headers.authorization = `Bearer ${callers.secret}`;
  if (c.as === "nobody" || c.as === "key") return answerOf(await fetch(`${server.baseUrl}${c.path}`, { ...init, redirect: "manual" }));
  const client = c.as === "broke" ? callers.broke : callers.person;
  return answerOf(await client.fetch(c.path, init));
}

describe("the gateway lane answers as Next's router does", () => {
  it(`${CASES.length} requests: the same status, headers and body shape on both paths`, async () => {
    const [a, b] = await Promise.all([callersOf(laned, "lane"), callersOf(routed, "next")]);
    const differences: string[] = [];
    for (const c of CASES) {
      const [onLane, onNext] = [await send(laned, a, c), await send(routed, b, c)];
      if (c.name.includes("(declared)")) expect(onLane.status, c.name).toBe(413);
      try {
        expect(onLane).toEqual(onNext);
      } catch {
        differences.push(`${c.name}:\n  lane ${JSON.stringify(onLane)}\n  next ${JSON.stringify(onNext)}`);
      }
    }
    expect(differences, differences.join("\n")).toEqual([]);
  });

  it("answers the same refusals with the security headers production sends (HSTS included) and a real request id", async () => {
    for (const server of [laned, routed]) {
      for (const path of ["/api/ai/chat", "/api/ai/stream", "/v1/chat/completions", "/api/no-such-endpoint"]) {
        const res = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers: json, body: chat });
        expect(res.headers.get("strict-transport-security"), path).toMatch(/max-age=\d+/);
        expect(res.headers.get("x-request-id"), path).toMatch(/^[\w.:-]{8,64}$/);
      }
    }
  });

  it("keeps a kept-alive connection serving after a refusal that left a large body unread, on both paths", async () => {
    for (const server of [laned, routed]) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const request = (path: string, body: Buffer | null) =>
        new Promise<{ status: number; socket: unknown; ms: number }>((resolve, reject) => {
          const started = Date.now();
          const req = http.request(
            `${server.baseUrl}${path}`,
            { method: body ? "POST" : "GET", agent, headers: body ? json : {} },
            (res) => {
              res.resume();
              res.on("end", () => resolve({ status: res.statusCode!, socket: req.socket, ms: Date.now() - started }));
            },
          );
          req.setTimeout(5000, () => req.destroy(new Error(`${path} timed out`)));
          req.on("error", reject);
          req.end(body ?? undefined);
        });
      // 1 MiB without a session (401 before the body is read), then the next request on the connection.
      const refused = await request("/api/ai/chat", Buffer.alloc(1024 * 1024, 0x61));
      expect(refused.status).toBe(401);
      const next = await request("/api/health", null);
      expect(next.status).toBe(200);
      expect(next.ms).toBeLessThan(2000);
      agent.destroy();
    }
  });
});
