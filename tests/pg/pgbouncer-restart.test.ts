import { afterAll, describe, expect, it } from "vitest";
import * as chat from "@/app/api/ai/chat/route";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { tcpRelay } from "@/tests/helpers/tcp-relay";
import { startPgBouncer } from "@/tests/helpers/pgbouncer";
import { useStubProvider } from "@/tests/integration/ai/ai-test-kit";

/**
 * A planned database restart behind PgBouncer (transaction pooling), as docs/DEPLOY.md "Database
 * restarts and failover" advises: PAUSE, restart, RESUME. The restart is a relay between PgBouncer and
 * PostgreSQL that drops every server connection and refuses new ones for 2 s (the shared test server
 * itself is never touched). Charged calls keep coming throughout: they wait instead of failing, and
 * each one's charge is exact.
 */
const direct = new URL(await useFreshPostgres());
const proxy = tcpRelay(direct);
const viaRelay = new URL(direct);
viaRelay.host = `127.0.0.1:${await proxy.listen()}`;
const bouncer = await startPgBouncer(viaRelay.toString());
process.env.DATABASE_URL = bouncer.url;
const restore = setEnv({ RATE_LIMIT_ENABLED: "false", DATABASE_PREPARED_STATEMENTS: "false", AI_MAX_CONCURRENT_PER_USER: "100" });
const { stub, restore: restoreStub } = await useStubProvider();
afterAll(async () => {
  restore();
  restoreStub();
  await stub.close();
  await closeDb();
  await bouncer.stop();
  await proxy.close();
});

const hello = { messages: [{ role: "user", content: "Hello there" }] };

describe("a database restart behind PgBouncer with PAUSE and RESUME", () => {
  it("charged calls during the restart wait instead of failing, and each is charged exactly once", async () => {
    const { user, cookie } = await signIn(`pgbouncer-restart-${Date.now()}@example.com`);
    const prisma = await db();
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { subscriptionCredits: 100_000 } });
    const before = (await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits;
    const statuses: number[] = [];
    let slowest = 0;
    let running = true;
    const client = async () => {
      while (running) {
        const started = Date.now();
        statuses.push((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hello })).status);
        slowest = Math.max(slowest, Date.now() - started);
      }
    };
    const clients = Array.from({ length: 6 }, client);
    await new Promise((r) => setTimeout(r, 500));
    await bouncer.admin("PAUSE app");
    const paused = statuses.length;
    await proxy.restart(2_000);
    await bouncer.admin("RESUME app");
    await new Promise((r) => setTimeout(r, 1_000));
    running = false;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(paused);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // A call waited for the restart and no longer: PgBouncer reconnects at RESUME (without PAUSE it
    // would first wait out server_login_retry, 15 s by default, after the refused reconnection).
    expect(slowest).toBeLessThan(2_000 + 2_500);
    await new Promise((r) => setTimeout(r, 300));
    const after = (await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } })).subscriptionCredits;
    const charged = await prisma.creditOperation.aggregate({
      where: { userId: user.id, kind: "charge", status: "settled" },
      _sum: { amount: true },
      _count: true,
    });
    expect(charged._count).toBe(statuses.length);
    expect(before - after).toBe(charged._sum.amount);
  }, 60_000);
});
