import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { INSTANCE_ID } from "@/lib/db/instance";
import { startServer } from "@/lib/server/start-server";
import { setEnv } from "@/tests/helpers/env";
import { useFreshPostgres, withPgClient } from "@/tests/helpers/pg";
import { waitUntil } from "@/tests/helpers/wait-until";

/**
 * A server started while PostgreSQL is down: it does not exit, retries its start-up steps in the
 * background and, once the database answers, registers as a live instance (so the sweep keeps off its
 * charges); one that never reaches it exits 1 after DATABASE_STARTUP_RETRY_SECONDS. The database is
 * "down" behind a local TCP forwarder that is not listening yet, then forwards to the real server.
 */
const realUrl = await useFreshPostgres();
const target = new URL(realUrl);

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Forwards 127.0.0.1:port to the real PostgreSQL (the database "comes back"). */
async function forward(port: number): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return server;
}

const port = await freePort();
const downUrl = new URL(realUrl);
downUrl.port = String(port);
const restore = setEnv({ DATABASE_URL: downUrl.toString(), DATABASE_STARTUP_RETRY_SECONDS: "30" });
let forwarder: net.Server | undefined;
afterAll(async () => {
  restore();
  forwarder?.close();
});

describe("a server started while PostgreSQL is down", () => {
  it("keeps running, retries, and registers as a live instance once the database answers", async () => {
    let exited: number | null = null;
    await startServer({ exit: ((code: number) => (exited = code)) as never });
    expect(exited).toBeNull();
    const registered = () =>
      withPgClient(realUrl, async (c) => (await c.query("SELECT 1 FROM server_instances WHERE id = $1", [INSTANCE_ID])).rowCount === 1);
    expect(await registered()).toBe(false);
    await new Promise((r) => setTimeout(r, 1_500));
    forwarder = await forward(port);
    await waitUntil("the instance to register once the database is back", registered, 15_000);
    expect(exited).toBeNull();
  }, 30_000);
});
