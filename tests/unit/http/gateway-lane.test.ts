import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  createGatewayLane,
  gatewayLaneEnabled,
  LANE_ROUTES,
  type GatewayLaneOptions,
  type LaneRouteHandler,
} from "@/lib/server/gateway-lane";

/**
 * The gateway lane over real node:http: a server whose listener is the lane in front of a stand-in for
 * Next's router (answers "next"), with route handlers written here (the lane's contract is the one
 * Next gives a route handler: a Request in, a Response out). The real handlers through the lane are
 * the e2e suite's, run with the lane on and off (E2E_GATEWAY_LANE=false).
 */
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

interface Lane {
  url: string;
  logs: Array<{ level: string; msg: string }>;
  setReady(ready: boolean): void;
}

async function laneServer(load: GatewayLaneOptions["loadHandler"]): Promise<Lane> {
  let ready = true;
  const logs: Lane["logs"] = [];
  const lane = createGatewayLane({
    loadHandler: load,
    ready: () => ready,
    hostname: "127.0.0.1",
    logLine: (level, msg) => logs.push({ level, msg }),
  });
  const server = http.createServer((req, res) => {
    if (!lane.serve(req, res)) {
      res.setHeader("content-type", "text/plain");
      res.setHeader("x-answered-by", "next");
      req.resume();
      res.end("next");
    }
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The first request after the app is ready starts loading the routes; Next answers it.
  await fetch(`${url}/warm-up`);
  await new Promise((r) => setTimeout(r, 20));
  return { url, logs, setReady: (r) => (ready = r) };
}

/** One handler for every laned route. */
const handlerOf = (fn: (req: Request) => Promise<Response> | Response) => {
  const handler = (async (req: Request) => fn(req)) as LaneRouteHandler;
  return async () => handler;
};

describe("gateway lane", () => {
  it("is on unless GATEWAY_LANE says false", () => {
    expect(gatewayLaneEnabled(undefined)).toBe(true);
    expect(gatewayLaneEnabled("")).toBe(true);
    expect(gatewayLaneEnabled("true")).toBe(true);
    expect(gatewayLaneEnabled("false")).toBe(false);
    expect(gatewayLaneEnabled("0")).toBe(false);
    expect(gatewayLaneEnabled("no")).toBe(false);
  });

  it("answers POST on the three AI routes' and GET on the three plain reads' exact paths (a query included); everything else, a trailing slash too, goes on to Next", async () => {
    const lane = await laneServer(handlerOf((req) => Response.json({ laned: req.method })));
    expect(Object.entries(LANE_ROUTES).map(([path, r]) => `${r.method} ${path}`)).toEqual([
      "POST /api/ai/chat",
      "POST /api/ai/stream",
      "POST /v1/chat/completions",
      "GET /api/user/status",
      "GET /api/ai/usage",
      "GET /v1/models",
    ]);
    for (const path of ["/api/ai/chat", "/api/ai/stream", "/v1/chat/completions", "/api/ai/chat?x=1"]) {
      const res = await fetch(`${lane.url}${path}`, { method: "POST", body: "{}" });
      expect(await res.json(), path).toEqual({ laned: "POST" });
    }
    for (const path of ["/api/user/status", "/api/ai/usage", "/v1/models", "/api/ai/usage?days=7"]) {
      const res = await fetch(`${lane.url}${path}`);
      expect(await res.json(), path).toEqual({ laned: "GET" });
    }
    // Next answers a trailing slash with its 308 redirect, never the route (nor a charge).
    for (const [method, path] of [
      ["POST", "/api/ai/chat/"],
      ["POST", "/api/ai/stream/"],
      ["POST", "/v1/chat/completions/"],
      ["POST", "/api/ai/chat/?x=1"],
      ["GET", "/api/ai/chat"],
      ["PUT", "/api/ai/chat"],
      ["POST", "/api/user/status"],
      ["HEAD", "/api/user/status"],
      ["GET", "/api/user/status/"],
      ["GET", "/v1/models/"],
      ["GET", "/api/user"],
      ["POST", "/api/ai/chatty"],
      ["POST", "/api/ai/rag/ask"],
      ["POST", "/v1/embeddings"],
      ["POST", "//api/ai/chat"],
      ["POST", "/API/AI/CHAT"],
      ["POST", "/api/ai/cha%74"],
    ]) {
      const res = await fetch(`${lane.url}${path}`, { method, body: method === "GET" || method === "HEAD" ? undefined : "{}" });
      if (method === "HEAD") expect(res.headers.get("x-answered-by"), `${method} ${path}`).toBe("next");
      else expect(await res.text(), `${method} ${path}`).toBe("next");
    }
    // A GET with a body (a web Request cannot carry one): Next's to answer.
    const withBody = await new Promise<string>((resolve, reject) => {
      const u = new URL(`${lane.url}/api/user/status`);
      const req = http.request(
        { host: u.hostname, port: u.port, path: u.pathname, method: "GET", headers: { "content-length": "2" } },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve(text));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(withBody).toBe("next");
  });

  it("leaves every request to Next until the app has started", async () => {
    const lane = await laneServer(handlerOf(() => Response.json({ laned: true })));
    lane.setReady(false);
    // Already loaded: readiness was seen once, the lane stays on.
    expect(await (await fetch(`${lane.url}/api/ai/chat`, { method: "POST", body: "{}" })).json()).toEqual({ laned: true });
    let ready = false;
    const cold = createGatewayLane({
      loadHandler: handlerOf(() => Response.json({ laned: true })),
      ready: () => ready,
      hostname: "127.0.0.1",
      logLine: () => undefined,
    });
    const server = http.createServer((req, res) => {
      if (!cold.serve(req, res)) res.end("next");
    });
    servers.push(server);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ai/chat`;
    expect(await (await fetch(url, { method: "POST", body: "{}" })).text()).toBe("next");
    ready = true;
    // The first request after the start loads the routes (Next answers it), the next one is the lane's.
    expect(await (await fetch(url, { method: "POST", body: "{}" })).text()).toBe("next");
    await new Promise((r) => setTimeout(r, 20));
    expect(await (await fetch(url, { method: "POST", body: "{}" })).json()).toEqual({ laned: true });
  });

  it("gives the handler Next's request: the server's URL, the headers with x-forwarded-* defaults, the streamed body", async () => {
    let seen: { url: string; method: string; headers: Record<string, string>; body: string } | null = null;
    const lane = await laneServer(
      handlerOf(async (req) => {
        seen = { url: req.url, method: req.method, headers: Object.fromEntries(req.headers), body: await req.text() };
        return Response.json({ ok: true });
      }),
    );
    const port = new URL(lane.url).port;
    const body = JSON.stringify({ messages: [{ role: "user", content: "x".repeat(100_000) }] });
    await fetch(`${lane.url}/api/ai/chat?trace=1`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: "a=1", "x-request-id": "lane-1" },
      body,
    });
    expect(seen!.url).toBe(`http://127.0.0.1:${port}/api/ai/chat?trace=1`);
    expect(seen!.method).toBe("POST");
    expect(seen!.body).toBe(body);
    expect(seen!.headers).toMatchObject({
      "content-type": "application/json",
      cookie: "a=1",
      "x-request-id": "lane-1",
      "x-forwarded-host": `127.0.0.1:${port}`,
      "x-forwarded-port": port,
      "x-forwarded-proto": "http",
      "x-forwarded-for": "127.0.0.1",
    });
    // What a proxy in front said is kept as it came.
    await fetch(`${lane.url}/api/ai/chat`, {
      method: "POST",
      headers: { "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https", "x-forwarded-host": "api.example.com" },
      body: "{}",
    });
    expect(seen!.headers).toMatchObject({
      "x-forwarded-for": "203.0.113.9",
      "x-forwarded-proto": "https",
      "x-forwarded-host": "api.example.com",
    });
    expect(seen!.url).toBe(`https://127.0.0.1:${port}/api/ai/chat`);
  });

  it("answers with the security headers, the handler's headers and cookies, JSON gzipped from 1 KB when accepted", async () => {
    const big = { text: "y".repeat(5000) };
    const lane = await laneServer(
      handlerOf((req) => {
        const small = new URL(req.url).searchParams.has("small");
        const headers = new Headers({
          "content-type": "application/json; charset=utf-8",
          "x-cache": "MISS",
          "x-frame-options": "SAMEORIGIN",
        });
        headers.append("set-cookie", "a=1; Path=/");
        headers.append("set-cookie", "b=2; Path=/");
        return new Response(JSON.stringify(small ? { ok: true } : big), { status: 201, headers });
      }),
    );
    const raw = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.request(`${lane.url}${path}`, { method: "POST", headers }, (res) => {
          const parts: Buffer[] = [];
          res.on("data", (c: Buffer) => parts.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
        });
        req.on("error", reject);
        req.end("{}");
      });
    const gz = await raw("/api/ai/chat", { "accept-encoding": "gzip, deflate, br" });
    expect(gz.status).toBe(201);
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.vary).toBe("Accept-Encoding");
    expect(JSON.parse(gunzipSync(gz.body).toString())).toEqual(big);
    expect(gz.headers["set-cookie"]).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(gz.headers["x-cache"]).toBe("MISS");
    // The handler's own value wins over the default, like Next's headers() config under a route's own.
    expect(gz.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(gz.headers["x-content-type-options"]).toBe("nosniff");
    expect(gz.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    const plain = await raw("/api/ai/chat", {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
    expect(JSON.parse(plain.body.toString())).toEqual(big);
    const refused = await raw("/api/ai/chat", { "accept-encoding": "gzip;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    const small = await raw("/api/ai/chat?small", { "accept-encoding": "gzip" });
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toEqual({ ok: true });
  });

  it("streams an event stream chunk by chunk, uncompressed, and cancels it and aborts the signal when the client leaves", async () => {
    let cancelled: unknown = null;
    let aborted = false;
    let sent = 0;
    // Pulls the stream began after it was cancelled (a pull already under way when the client left
    // may still finish: it was asked for before the cancel, so it is not counted).
    let pulledAfterCancel = 0;
    const lane = await laneServer(
      handlerOf((req) => {
        req.signal.addEventListener("abort", () => (aborted = true));
        const stream = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (cancelled) pulledAfterCancel++;
            await new Promise((r) => setTimeout(r, 5));
            sent++;
            controller.enqueue(new TextEncoder().encode(`data: ${sent}\n\n`));
          },
          cancel(reason) {
            cancelled = reason ?? true;
          },
        });
        return new Response(stream, {
          headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" },
        });
      }),
    );
    const controller = new AbortController();
    const res = await fetch(`${lane.url}/api/ai/stream`, {
      method: "POST",
      body: "{}",
      headers: { "accept-encoding": "gzip" },
      signal: controller.signal,
    });
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe("data: 1\n\n");
    controller.abort();
    const deadline = Date.now() + 2000;
    while ((!cancelled || !aborted) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toBeTruthy();
    expect(aborted).toBe(true);
    // Ten pull periods after the cancel: a stream still being read would have been pulled again.
    await new Promise((r) => setTimeout(r, 50));
    expect(pulledAfterCancel).toBe(0);
  });

  it("keeps a kept-alive connection usable after an answer given before the body was read (401, 413), and closes it when the rest is too large", async () => {
    const lane = await laneServer(
      handlerOf(async (req) => {
        if (new URL(req.url).searchParams.has("half")) {
          // Reads a little, then refuses the rest (the wrapper's 413 while reading).
          const reader = req.body!.getReader();
          await reader.read();
          await reader.cancel();
          return Response.json({ error: "too large", code: "payload_too_large" }, { status: 413 });
        }
        return Response.json({ error: "no session", code: "unauthorized" }, { status: 401 });
      }),
    );
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, body: Buffer | null, extra: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; socket: unknown }>((resolve, reject) => {
        const req = http.request(
          `${lane.url}${path}`,
          { method: "POST", agent, headers: { "content-type": "application/json", ...extra } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString(), socket: req.socket }),
            );
          },
        );
        req.on("error", reject);
        req.setTimeout(3000, () => req.destroy(new Error(`timed out: ${path}`)));
        // The body is written whatever the answer (as curl does): the server must read or close.
        if (body) req.end(body);
        else req.end();
      });
    const mib = Buffer.alloc(900 * 1024, 0x61);
    for (const path of ["/api/ai/chat", "/api/ai/chat?half"]) {
      const early = await send(path, mib);
      expect(early.status, path).toBe(path.includes("half") ? 413 : 401);
      expect(early.headers.connection, path).not.toBe("close");
      // The next request on the same connection is read from its own start, at once.
      const started = Date.now();
      const next = await send("/api/health", null);
      expect(next.text).toBe("next");
      expect(next.socket).toBe(early.socket);
      expect(Date.now() - started).toBeLessThan(1000);
    }
    // A rest over the drain limit (or of unknown length) closes the connection once answered.
    const big = await send("/api/ai/chat", Buffer.alloc(3 * 1024 * 1024, 0x61));
    expect(big.status).toBe(401);
    expect(big.headers.connection).toBe("close");
    const after = await send("/api/health", null);
    expect(after.text).toBe("next");
    agent.destroy();
  });

  it("sends HSTS once the app runs in production, whatever NODE_ENV was when the lane was made", async () => {
    const before = process.env.NODE_ENV;
    (process.env as Record<string, string>).NODE_ENV = "development";
    try {
      const lane = await laneServer(handlerOf(() => Response.json({ ok: true })));
      (process.env as Record<string, string>).NODE_ENV = "production";
      const res = await fetch(`${lane.url}/api/ai/chat`, { method: "POST", body: "{}" });
      expect(res.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    } finally {
      (process.env as Record<string, string>).NODE_ENV = before as string;
    }
  });

  it("answers a handler's failure with a 500 in the API's error shape", async () => {
    const lane = await laneServer(handlerOf(() => Promise.reject(new Error("boom"))));
    const res = await fetch(`${lane.url}/api/ai/chat`, { method: "POST", body: "{}" });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "Internal server error", code: "internal" });
    expect(lane.logs.some((l) => l.level === "error" && l.msg.includes("request failed"))).toBe(true);
  });

  it.each([
    [
      "a module that does not load",
      (modulePath: string) =>
        modulePath.includes("stream")
          ? Promise.reject(new Error("Next.js internals changed: no compiled route module"))
          : handlerOf(() => Response.json({ laned: true }))(),
    ],
    [
      "a module without a POST handler",
      (modulePath: string) => (modulePath.includes("v1") ? Promise.resolve(null) : handlerOf(() => Response.json({ laned: true }))()),
    ],
  ])("turns itself off as a whole, with one error line, when a laned route is %s: Next answers every route", async (_what, load) => {
    const broken = await laneServer(load as GatewayLaneOptions["loadHandler"]);
    for (const path of ["/api/ai/chat", "/api/ai/stream", "/v1/chat/completions"]) {
      expect(await (await fetch(`${broken.url}${path}`, { method: "POST", body: "{}" })).text(), path).toBe("next");
    }
    const off = broken.logs.filter((l) => l.level === "error" && l.msg.startsWith("gateway lane is off"));
    expect(off).toHaveLength(1);
  });
});
