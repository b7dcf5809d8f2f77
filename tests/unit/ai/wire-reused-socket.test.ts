import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWireClient } from "@/lib/ai/providers/openai-wire";

/**
 * A provider that resets a kept-alive connection as it is reused (its idle timeout racing our next
 * request): the wire client sends the request again on a new connection instead of failing the call.
 * A reset on a fresh connection is the provider's failure and is not retried.
 */
let server: Server;
let url = "";
let resetFresh = false;
const served = new WeakMap<Socket, number>();
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    const socket = req.socket;
    const before = served.get(socket) ?? 0;
    served.set(socket, before + 1);
    if (before > 0 || resetFresh) {
      socket.resetAndDestroy();
      return;
    }
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", connection: "keep-alive" });
      res.end('data: {"ok":true}\n\ndata: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function ask(client: ReturnType<typeof createWireClient>) {
  const out: unknown[] = [];
  for await (const batch of client.postStream<unknown>("/chat/completions", { hi: 1 }, new AbortController().signal)) out.push(...batch);
  return out;
}

describe("the provider wire client and reused connections", () => {
  it("sends once more on a new connection when a reused one is reset before any answer", async () => {
    const client = createWireClient({ apiKey: "sk-test", baseURL: url, userAgent: "test" });
    expect(await ask(client)).toEqual([{ ok: true }]);
    await new Promise((r) => setTimeout(r, 50)); // the connection back in the agent's pool
    requests = 0;
    // The kept-alive connection is reused and reset: the client answers from a second, new connection.
    expect(await ask(client)).toEqual([{ ok: true }]);
    expect(requests).toBe(2);
  });

  it("does not retry a reset on a fresh connection", async () => {
    resetFresh = true;
    const client = createWireClient({ apiKey: "sk-test", baseURL: url, userAgent: "test" });
    requests = 0;
    await expect(ask(client)).rejects.toThrow(/connection failed/);
    expect(requests).toBe(1);
    resetFresh = false;
  });
});
