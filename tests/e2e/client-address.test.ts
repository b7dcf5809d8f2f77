import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * The standalone server tells the app each request's socket peer (scripts/preflight.ts), because
 * Next.js passes a client-written X-Forwarded-For on as it is. With TRUSTED_PROXY_HOPS=0 (exposed
 * directly) a client rotating that header still lands in one per-IP window.
 */
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ TRUSTED_PROXY_HOPS: "0" }, { dataDirPrefix: "svc-client-address-" });
});

afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

describe("client address of a directly exposed server", () => {
  it("101 unsigned payment webhooks with a new X-Forwarded-For each: the 101st is refused (100 per IP)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) {
      const res = await fetch(`${server.baseUrl}/api/webhooks/payment`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${i % 250}` },
        body: "{}",
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses[100]).toBe(429);
  });
});
