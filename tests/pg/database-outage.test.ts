import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import * as chat from "@/app/api/ai/chat/route";
import * as usage from "@/app/api/ai/usage/route";
import * as completions from "@/app/v1/chat/completions/route";
import { keptSettlements, refundStaleReservations, replayJournaledSettlements, reserveCredits, settleReservation } from "@/lib/credits";
import { env } from "@/lib/config/env";
import { closeDb, db } from "@/lib/db/client";
import { keptSlotReleases, releaseSlotSoon } from "@/lib/db/ai-slots";
import { databaseDown, isDatabaseUnreachable } from "@/lib/db/outage";
import { unansweredReservations } from "@/lib/credits/unanswered-reservations";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { tcpRelay } from "@/tests/helpers/tcp-relay";

/**
 * A database outage as the network shows it: the server reaches PostgreSQL through a TCP relay that
 * can drop every connection and refuse new ones (the shared test server itself is never touched).
 */
const direct = new URL(await useFreshPostgres());
const proxy = tcpRelay(direct);
const viaRelay = new URL(direct);
viaRelay.host = `127.0.0.1:${await proxy.listen()}`;
process.env.DATABASE_URL = viaRelay.toString();
const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
afterAll(async () => {
  restore();
  proxy.up();
  await closeDb();
  await proxy.close();
});

async function until(check: () => boolean | Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a database outage (PostgreSQL behind a relay that drops every connection)", () => {
  it("a settlement and a slot release the outage refused are kept and written once the database is back; requests meanwhile answer 503 with Retry-After", async () => {
    await closeDb();
    const { user, cookie } = await signIn(`outage-${Date.now()}@example.com`);
    const prisma = await db();
    const before = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    const charge = await reserveCredits({ userId: user.id, amount: 15, operation: "chat" });
    const slotId = randomUUID();
    await prisma.aiRequestSlot.create({ data: { id: slotId, userId: user.id, expiresAt: new Date(Date.now() + 180_000) } });

    proxy.down();
    // The answer was delivered: its settlement meets the outage, is kept, and the caller is told the charge it will write.
    const settled = await settleReservation(charge, { amount: 12 });
    expect(settled).toMatchObject({ settled: true, charged: 12, deferred: true });
    expect(keptSettlements()).toBeGreaterThan(0);
    // A call's AI slot given back during the outage: kept and given back once it is over, not at its lease's end.
    await releaseSlotSoon(slotId);
    expect(keptSlotReleases()).toBe(1);

    // Requests during the outage: 503 with Retry-After and the code `unavailable` (OpenAI's shape on /v1), never a 500.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call(usage.GET, { path: "/api/ai/usage", cookie });
      statuses.push(res.status);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: "unavailable" });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(databaseDown()).toBe(true);
    const v1 = await call(completions.POST, {
      path: "/v1/chat/completions",
      headers: { authorization: `Bearer sk-${"A1b2C3d4E5".repeat(4)}abc` },
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    });
    expect(v1.status).toBe(503);
    // /v1 names a 503 as its other 503s do (OpenAI's shape: lib/http/openai-error.ts).
    expect(v1.body.error).toMatchObject({ code: "service_unavailable" });
    expect(Number(v1.headers.get("retry-after"))).toBeGreaterThan(0);

    proxy.up();
    await until(() => keptSettlements() === 0, 20_000);
    await until(() => !databaseDown(), 10_000);
    await until(async () => (await prisma.aiRequestSlot.count({ where: { id: slotId } })) === 0, 20_000);
    const op = await prisma.creditOperation.findUniqueOrThrow({ where: { id: charge.id } });
    expect(op.status).toBe("settled");
    const after = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(before.subscriptionCredits - after.subscriptionCredits).toBe(12);
    expect(await prisma.creditOperation.count({ where: { userId: user.id, kind: "refund" } })).toBe(0);
    expect((await call(usage.GET, { path: "/api/ai/usage", cookie })).status).toBe(200);
  }, 60_000);

  it("a server that died with settlements kept leaves them in its journal: the next one writes them before its sweep, which then refunds nothing", async () => {
    const { user } = await signIn(`journal-${Date.now()}@example.com`);
    const prisma = await db();
    const before = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    const charge = await reserveCredits({ userId: user.id, amount: 15, operation: "chat" });
    // The charge is another (gone) process's: its journal is what it left behind.
    const gone = randomUUID();
    await prisma.creditOperation.update({
      where: { id: charge.id },
      data: { instanceId: gone, createdAt: new Date(Date.now() - 3_600_000) },
    });
    const dir = path.resolve(env().dataDir, "settlements");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, `kept-${gone}.jsonl`),
      `${JSON.stringify({ id: charge.id, userId: user.id, reserved: 15, operation: "chat", input: { amount: 15 } })}\n`,
    );
    expect(await replayJournaledSettlements()).toBe(1);
    expect(existsSync(path.join(dir, `kept-${gone}.jsonl`))).toBe(false);
    expect(await refundStaleReservations(0)).toEqual({ refunded: 0 });
    expect((await prisma.creditOperation.findUniqueOrThrow({ where: { id: charge.id } })).status).toBe("settled");
    const after = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(before.subscriptionCredits - after.subscriptionCredits).toBe(15);
    // Replayed again (a second server claiming the same file): nothing left, nothing twice.
    expect(await replayJournaledSettlements()).toBe(0);
  });

  /** Holds `userId`'s balance row from another session (directly, not through the relay) until `release()`. */
  async function holdBalanceRow(userId: string) {
    const client = new pg.Client({ connectionString: direct.toString() });
    await client.connect();
    await client.query("BEGIN");
    await client.query("SELECT 1 FROM credit_balances WHERE user_id = $1 FOR UPDATE", [userId]);
    return {
      release: async () => {
        await client.query("COMMIT");
        await client.end();
      },
    };
  }

  /** Waits until a statement of the server's (through the relay) waits on a lock. */
  async function untilWaitingOnLock() {
    await until(async () => {
      const rows = await withDirect((c) => c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'"));
      return rows.rows[0].n > 0;
    }, 10_000);
  }

  async function withDirect<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: direct.toString() });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  async function chargesOf(userId: string) {
    return withDirect(
      async (c) =>
        (
          await c.query<{ id: string; status: string }>("SELECT id, status FROM credit_operations WHERE user_id = $1 AND kind = 'charge'", [
            userId,
          ])
        ).rows,
    );
  }

  it("a reservation committed just as its connection dropped (its answer lost) is refunded once the database answers", async () => {
    await closeDb();
    const { user } = await signIn(`unanswered-${Date.now()}@example.com`);
    const prisma = await db();
    const before = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    const lock = await holdBalanceRow(user.id);
    const reserving = reserveCredits({ userId: user.id, amount: 15, operation: "chat" }).then(
      () => null,
      (error: unknown) => error,
    );
    await untilWaitingOnLock();
    // The connection drops while the statement waits; then the lock is released and the statement commits.
    proxy.down();
    const error = await reserving;
    expect(isDatabaseUnreachable(error)).toBe(true);
    await lock.release();
    proxy.up();
    expect(unansweredReservations()).toBe(1);
    await until(async () => (await chargesOf(user.id)).some((c) => c.status === "refunded"), 20_000);
    expect((await chargesOf(user.id)).map((c) => c.status)).toEqual(["refunded"]);
    const after = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(after.subscriptionCredits).toBe(before.subscriptionCredits);
    await until(() => unansweredReservations() === 0, 10_000);
  }, 60_000);

  it("a connection reset mid-statement (TCP RST: pg's bare 'read ECONNRESET', naming no port) answers 503 with Retry-After, not 500, and the charge is refunded", async () => {
    await closeDb();
    const { user, cookie } = await signIn(`reset-${Date.now()}@example.com`);
    const prisma = await db();
    const before = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    const lock = await holdBalanceRow(user.id);
    const answering = call(chat.POST, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "hi" }] } });
    await untilWaitingOnLock();
    proxy.reset();
    const res = await answering;
    await lock.release();
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "unavailable" });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await until(async () => (await chargesOf(user.id)).every((c) => c.status !== "reserved"), 20_000);
    expect((await chargesOf(user.id)).map((c) => c.status)).toEqual(["refunded"]);
    const after = await prisma.creditBalance.findUniqueOrThrow({ where: { userId: user.id } });
    expect(after.subscriptionCredits).toBe(before.subscriptionCredits);
  }, 60_000);
});
