import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWireClient } from "@/lib/ai/providers/openai-wire";

/**
 * The hot path's HTTP client against a real local server speaking SSE: a finished answer's connection
 * is reused, one stopped early is closed (which is what stops the provider's billing), and a provider
 * still sending after [DONE] is cut rather than read forever.
 */
let server: Server;
let baseURL: string;
let connections = 0;
let closed = 0;
let behaviour: (res: ServerResponse) => void = () => undefined;

const chunk = (text: string) => `data: ${JSON.stringify({ choices: [{ delta: { content: text } }] })}\n\n`;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      behaviour(res);
    });
  });
  server.on("connection", (socket) => {
    connections++;
    socket.on("close", () => closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function readAll(client: ReturnType<typeof createWireClient>, stopAfter = Infinity): Promise<number> {
  let n = 0;
  for await (const batch of client.postStream<unknown>("/chat/completions", { stream: true }, new AbortController().signal)) {
    n += batch.length;
    if (n >= stopAfter) break;
  }
  return n;
}

const until = async (check: () => boolean, ms = 3_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return check();
};

describe("the OpenAI wire client", () => {
  it("gives a finished answer's connection back to the pool: two calls, one connection", async () => {
    behaviour = (res) => {
      res.write(chunk("a") + chunk("b"));
      setTimeout(() => res.end("data: [DONE]\n\n"), 5);
    };
    const client = createWireClient({ apiKey: "k", baseURL, userAgent: "test" });
    const before = connections;
    expect(await readAll(client)).toBe(2);
    // The answer's last bytes (the chunked terminator) are read after [DONE]; then the socket is free.
    await new Promise((r) => setTimeout(r, 50));
    expect(await readAll(client)).toBe(2);
    expect(connections - before).toBe(1);
  });

  it("closes the connection of an answer its reader stopped early (the provider stops producing)", async () => {
    let ended = false;
    behaviour = (res) => {
      res.write(chunk("a"));
      const timer = setInterval(() => res.write(chunk("more")), 5);
      res.on("close", () => {
        clearInterval(timer);
        ended = true;
      });
    };
    const client = createWireClient({ apiKey: "k", baseURL, userAgent: "test" });
    expect(await readAll(client, 1)).toBe(1);
    expect(await until(() => ended)).toBe(true);
  });

  it("cuts a provider that keeps sending after [DONE] instead of reading it forever", async () => {
    let ended = false;
    behaviour = (res) => {
      res.write(chunk("a") + "data: [DONE]\n\n");
      const timer = setInterval(() => res.write(chunk("after the end")), 20);
      res.on("close", () => {
        clearInterval(timer);
        ended = true;
      });
    };
    const client = createWireClient({ apiKey: "k", baseURL, userAgent: "test" });
    expect(await readAll(client)).toBe(1);
    expect(await until(() => ended, 3_000)).toBe(true);
    expect(closed).toBeGreaterThan(0);
  });
});
