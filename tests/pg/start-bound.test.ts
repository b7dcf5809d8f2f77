import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "@/lib/server/start-server";
import { setEnv } from "@/tests/helpers/env";
import { waitUntil } from "@/tests/helpers/wait-until";

/** A server whose database never answers exits 1 once DATABASE_STARTUP_RETRY_SECONDS has passed (for its supervisor to restart it). */
const probe = net.createServer();
await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
const { port } = probe.address() as net.AddressInfo;
await new Promise((r) => probe.close(r));
const restore = setEnv({
  DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/nowhere`,
  DATABASE_STARTUP_RETRY_SECONDS: "4",
  PGLITE_DATA_DIR: undefined,
});
afterAll(restore);

describe("a server whose database never comes up", () => {
  it("exits 1 after the start-up bound, not at once", async () => {
    let exited: number | null = null;
    const started = Date.now();
    await startServer({ exit: ((code: number) => (exited = code)) as never });
    expect(exited).toBeNull();
    await waitUntil("the process to give up", () => exited !== null, 10_000);
    expect(exited).toBe(1);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(2_500);
    expect(took).toBeLessThanOrEqual(5_000);
  }, 15_000);
});
