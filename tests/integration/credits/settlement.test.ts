import { afterAll, describe, expect, it } from "vitest";
import { runChat } from "@/lib/ai/chat/run-chat";
import {
  adjustCredits,
  drainSettlements,
  refundReservation,
  refundStaleReservations,
  reserveCredits,
  settleInBackground,
  settleReservation,
} from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { expectLedgerBalances } from "./invariant";

/**
 * A charge is settled in the step that sends its answer, so the record tells an answer that went out
 * (settled) from one a crash cut off (still reserved): the cleanup refunds the latter, and a crash errs
 * toward the user. Settlements of concurrent requests share statements.
 */
afterAll(closeDb);

const body = { messages: [{ role: "user" as const, content: "Hello" }] };

async function balanceOf(userId: string) {
  const prisma = await db();
  const sub = (await prisma.creditBalance.findUniqueOrThrow({ where: { userId } })).subscriptionCredits;
  const bonus = (await prisma.bonusPurchase.aggregate({ where: { userId }, _sum: { remaining: true } }))._sum.remaining ?? 0;
  return { sub, bonus };
}

async function bonusOnlyUser(email: string) {
  const { user } = await signIn(email);
  const prisma = await db();
  const { sub } = await balanceOf(user.id);
  await prisma.$transaction(async (tx) => {
    await adjustCredits(tx, { userId: user.id, amount: -sub, bucket: "subscription", idempotencyKey: `${email}-sub`, metadata: {} });
    await adjustCredits(tx, { userId: user.id, amount: 100, bucket: "bonus", idempotencyKey: `${email}-bonus`, metadata: {} });
  });
  await prisma.user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
  return user.id;
}

describe("settling with the answer", () => {
  it("a chat answer's price is known when it leaves; its settlement is written right after: operation settled, usage on the ledger rows", async () => {
    const userId = await bonusOnlyUser("bonus-settles@example.com");
    const answer = await runChat({ userId, body });
    expect(answer.cost).toBe(15);
    // What Next's after() waits for (the route wrapper drains it after the response).
    await drainSettlements();
    const prisma = await db();
    const op = await prisma.creditOperation.findFirstOrThrow({ where: { userId, kind: "charge" } });
    expect(op).toMatchObject({ status: "settled", amount: 15, model: "gpt-4o-mini" });
    const rows = await prisma.creditTransaction.findMany({ where: { userId, type: "usage" } });
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.metadata).toMatchObject({
        model: "gpt-4o-mini",
        pricing: "flat",
        promptTokens: expect.any(Number),
        completionTokens: expect.any(Number),
        costMicros: expect.any(Number),
        credits: 15,
      });
    }
    expect(await balanceOf(userId)).toEqual({ sub: 0, bonus: 85 });
  });

  it("the sweep refunds a charge only once the process that made it is gone (stopped, or its heartbeat lost), never a live one's, however old", async () => {
    const userId = await bonusOnlyUser("crash-before-answer@example.com");
    const r = await reserveCredits({ userId, amount: 15, operation: "chat", metadata: { model: "gpt-4o-mini" } });
    expect(await balanceOf(userId)).toEqual({ sub: 0, bonus: 85 });
    const prisma = await db();
    const status = async () => (await prisma.creditOperation.findUniqueOrThrow({ where: { id: r.id } })).status;
    // This process is alive (it may still be streaming the answer): left alone, however old.
    expect((await refundStaleReservations(0)).refunded).toBe(0);
    // Another server, alive (a recent heartbeat): left alone too.
    await prisma.$executeRaw`INSERT INTO server_instances (id, host, pid, heartbeat_at) VALUES ('other-server', 'other', 4242, now())`;
    await prisma.creditOperation.update({ where: { id: r.id }, data: { instanceId: "other-server" } });
    expect((await refundStaleReservations(0)).refunded).toBe(0);
    // Its heartbeat lost for longer than LOST_AFTER_MS, but the charge is recent: still left alone.
    await prisma.$executeRaw`UPDATE server_instances SET heartbeat_at = now() - interval '10 minutes' WHERE id = 'other-server'`;
    expect((await refundStaleReservations()).refunded).toBe(0);
    expect(await status()).toBe("reserved");
    // Past the threshold: refunded in full, once, even when two sweeps (two instances) race.
    const [a, b] = await Promise.all([refundStaleReservations(0), refundStaleReservations(0)]);
    expect(a.refunded + b.refunded).toBe(1);
    expect((await prisma.creditOperation.findUniqueOrThrow({ where: { id: r.id } })).status).toBe("refunded");
    expect(await balanceOf(userId)).toEqual({ sub: 0, bonus: 100 });
    const refund = await prisma.creditTransaction.findFirstOrThrow({ where: { userId, type: "refund" } });
    expect(refund.metadata).toMatchObject({ reason: "not_settled", reservationId: r.id });
    // A settlement arriving after the cleanup (a process that was only slow) changes nothing.
    expect(await settleReservation(r, { amount: 15 })).toMatchObject({ settled: false });
    expect(await balanceOf(userId)).toEqual({ sub: 0, bonus: 100 });
    await expectLedgerBalances(userId);
  });

  it("a settlement in the background at the amount reserved (the light statement) settles each charge once, with its usage, and never one refunded before it", async () => {
    const userId = await bonusOnlyUser("exact-settle@example.com");
    const prisma = await db();
    const kept = await reserveCredits({ userId, amount: 15, operation: "chat", metadata: { model: "gpt-4o-mini" } });
    const refunded = await reserveCredits({ userId, amount: 15, operation: "chat", metadata: { model: "gpt-4o-mini" } });
    await refundReservation(refunded);
    expect(await balanceOf(userId)).toEqual({ sub: 0, bonus: 85 });
    const usage = { model: "gpt-4o-mini", promptTokens: 7, completionTokens: 3, credits: 15 };
    for (const r of [kept, refunded, kept]) settleInBackground(r, { amount: 15, costMicros: 12.2, metadata: usage });
    await drainSettlements();
    expect(await balanceOf(userId)).toEqual({ sub: 0, bonus: 85 });
    const op = await prisma.creditOperation.findUniqueOrThrow({ where: { id: kept.id! } });
    expect(op).toMatchObject({ status: "settled", amount: 15, costMicros: 13n });
    expect((op.details as { metadata: Record<string, unknown> }).metadata).toMatchObject(usage);
    expect((await prisma.creditOperation.findUniqueOrThrow({ where: { id: refunded.id! } })).status).toBe("refunded");
    const rows = await prisma.creditTransaction.findMany({ where: { operationId: kept.id!, type: "usage" } });
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.metadata).toMatchObject(usage);
    await expectLedgerBalances(userId);
  });

  it("settled charges are never touched by the cleanup", async () => {
    const { user } = await signIn("settled-stays@example.com");
    await runChat({ userId: user.id, body });
    await drainSettlements();
    const before = await balanceOf(user.id);
    await refundStaleReservations(0);
    expect(await balanceOf(user.id)).toEqual(before);
  });

  it("concurrent settlements share statements and each gets its own outcome", async () => {
    const { user } = await signIn("batched-settle@example.com");
    const reservations = await Promise.all(
      Array.from({ length: 8 }, () => reserveCredits({ userId: user.id, amount: 15, operation: "chat" })),
    );
    const settled = await Promise.all(reservations.map((r, i) => settleReservation(r, { amount: i, metadata: { completionTokens: i } })));
    expect(settled.map((s) => s.charged)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const ops = await (await db()).creditOperation.findMany({ where: { userId: user.id, kind: "charge" } });
    expect(ops.map((o) => o.status)).toEqual(Array(8).fill("settled"));
    expect((await balanceOf(user.id)).sub).toBe(200 - 28);
    await drainSettlements(); // nothing queued: returns at once
    await expectLedgerBalances(user.id);
  });
});
