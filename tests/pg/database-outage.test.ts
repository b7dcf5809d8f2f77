import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as usage from "@/app/api/ai/usage/route";
import * as completions from "@/app/v1/chat/completions/route";
import { keptSettlements, refundStaleReservations, replayJournaledSettlements, reserveCredits, settleReservation } from "@/lib/credits";
import { env } from "@/lib/config/env";
import { closeDb, db } from "@/lib/db/client";
import { keptSlotReleases, releaseSlotSoon } from "@/lib/db/ai-slots";
import { databaseDown } from "@/lib/db/outage";
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
});
