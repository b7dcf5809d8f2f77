import { existsSync, readdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * kill -9 during an upload: the local store writes `<key>.partial` and renames it when complete, so a
 * killed process leaves the partial behind; the next start removes it.
 */
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  if (servers[0]) removeDir(servers[0].dataDir);
});

function partials(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((n) => n.endsWith(".partial"));
}

describe("crash-safe uploads", () => {
  it("a partial left by a killed server is gone after the next start", async () => {
    const first = await startServer({}, { dataDirPrefix: "svc-crash-" });
    servers.push(first);
    const client = new Client(first.baseUrl);
    await client.signIn("crash@example.com");
    const storage = path.join(first.dataDir, "storage");

    // A 40 MB upload of which 16 MB are sent, then the server is killed mid-stream.
    const size = 40 * 1024 * 1024;
    const url = new URL(`${first.baseUrl}/api/upload?filename=big.txt&filesize=${size}&filetype=text/plain`);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: "POST",
      headers: { cookie: client.cookieHeader(), "content-type": "application/octet-stream", "content-length": String(size) },
    });
    req.on("error", () => undefined);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 16; i++) await new Promise<void>((resolve) => (req.write(chunk) ? resolve() : req.once("drain", resolve)));
    const deadline = Date.now() + 15_000;
    while (partials(storage).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(partials(storage).length).toBe(1);
    process.kill(first.pid, "SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    req.destroy();
    expect(partials(storage).length).toBe(1);

    const second = await startServer({}, { dataDir: first.dataDir });
    servers.push(second);
    const until = Date.now() + 15_000;
    while (partials(storage).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(partials(storage)).toEqual([]);
  });
});
