import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * Traces of the production server, exported over OTLP/HTTP (JSON) to a local receiver: one charged
 * chat request yields the route span (carrying the request id) with the credit reservation, the
 * provider call, the settlement and their database statements below it, in one trace.
 */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

const spans: ReceivedSpan[] = [];
let receiver: Server;
let receiverUrl = "";
let server: RunningServer;
let stub: OpenAiStub;

function attributesOf(list: Array<{ key: string; value: Record<string, unknown> }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const payload = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<Record<string, any>> }> }> };
        for (const rs of payload.resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                attributes: attributesOf(s.attributes),
              });
            }
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stub = await startOpenAiStub();
  server = await startServer(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OPENAI_API_KEY: "sk-trace-test",
      OPENAI_BASE_URL: stub.url,
    },
    { dataDirPrefix: "svc-trace-" },
  );
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
  await stub?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("OpenTelemetry traces", () => {
  it("one charged chat: route span with the request id, and reserve, provider call, settle and their queries below it", async () => {
    const client = new Client(server.baseUrl);
    await client.signIn("traced@example.com");
    const res = await client.fetch("/api/ai/chat", {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "trace-test-request-1" },
      body: JSON.stringify({ messages: [{ role: "user", content: "trace me" }] }),
    });
    expect(res.status).toBe(200);
    const deadline = Date.now() + 20_000;
    const find = (name: string) => spans.find((s) => s.name === name);
    while (!(find("credits.settle") && spans.some((s) => s.attributes["request.id"] === "trace-test-request-1")) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const route = spans.find((s) => s.attributes["request.id"] === "trace-test-request-1");
    expect(route, `spans: ${spans.map((s) => s.name).join(", ")}`).toBeDefined();
    const trace = spans.filter((s) => s.traceId === route!.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const underRoute = (s: ReceivedSpan) => {
      for (let p = s.parentSpanId; p; p = byId.get(p)?.parentSpanId) if (p === route!.spanId) return true;
      return false;
    };
    for (const name of ["credits.reserve", "ai.provider.chat", "credits.settle"]) {
      const span = trace.find((s) => s.name === name);
      expect(span, `${name} in the trace (${trace.map((s) => s.name).join(", ")})`).toBeDefined();
      expect(underRoute(span!), `${name} below the route span`).toBe(true);
    }
    const provider = trace.find((s) => s.name === "ai.provider.chat")!;
    expect(provider.attributes).toMatchObject({ "ai.outcome": "ok", "ai.model": expect.any(String) });
    expect(Number(provider.attributes["ai.tokens.prompt"])).toBeGreaterThan(0);
    // The settlement's statement is a child of the settlement span.
    const settle = trace.find((s) => s.name === "credits.settle")!;
    expect(trace.some((s) => s.name.startsWith("db.query ") && s.parentSpanId === settle.spanId)).toBe(true);
    expect(
      trace.some((s) => s.name.startsWith("db.query ") && s.parentSpanId === trace.find((t) => t.name === "credits.reserve")!.spanId),
    ).toBe(true);
  }, 60_000);

  it("never exports an API key, even one sent in a URL's query string (refused by the API)", async () => {
    const client = new Client(server.baseUrl);
    await client.signIn("traced-keys@example.com");
    const created = await client.json<{ secret: string }>("/api/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "traced" }),
    });
    const secret = created.body.secret;
    const inUrl = await fetch(`${server.baseUrl}/v1/models?api_key=${secret}`, { headers: { "x-request-id": "trace-key-in-url" } });
    expect(inUrl.status).toBe(401);
    const inHeader = await fetch(`${server.baseUrl}/v1/models`, {
      headers: { authorization: `Bearer ${secret}`, "x-request-id": "trace-key-in-header" },
    });
    expect(inHeader.status).toBe(200);
    const deadline = Date.now() + 20_000;
    while (
      !["trace-key-in-url", "trace-key-in-header"].every((id) => spans.some((s) => s.attributes["request.id"] === id)) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const seen = spans.filter((s) => s.name.includes("/v1/models") || String(s.attributes["http.target"] ?? "").includes("/v1/models"));
    expect(seen.length).toBeGreaterThan(0);
    expect(JSON.stringify(spans)).not.toContain(secret);
    expect(JSON.stringify(spans)).not.toContain(secret.slice(3));
  }, 60_000);
});
