import { afterAll, describe, expect, it } from "vitest";
import { runChat } from "@/lib/ai/run-chat";
import { adjustCredits, flushSettlements, queueSettlement, reserveCredits, settleStaleReservations } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";

/**
 * The AI routes settle after the response is sent. Settling cannot lose a charge: the reservation
 * already took the credits and wrote the ledger. A process that dies between the answer and the
 * settlement leaves a plain charge complete (its ledger row, with the model it was reserved for) and
 * a charge with an operation row `reserved`, which the daily cleanup settles.
 */
afterAll(closeDb);

const body = { messages: [{ role: "user" as const, content: "Hello" }] };
/** An `after` whose work never runs: the process died right after sending the answer. */
const processDiesAfterAnswer = async () => undefined;

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

describe("settling after the answer", () => {
  it("a plain charge is complete without its settlement: credits taken, ledger row with the reserved model", async () => {
    const { user } = await signIn("dies-after-answer@example.com");
    const before = await balanceOf(user.id);
    const answer = await runChat({ userId: user.id, body, after: processDiesAfterAnswer });
    expect(answer.cost).toBe(15);
    expect((await balanceOf(user.id)).sub).toBe(before.sub - 15);
    const row = await (await db()).creditTransaction.findFirstOrThrow({ where: { userId: user.id, type: "usage" } });
    expect(row).toMatchObject({ amount: -15, operation: "chat", operationId: null });
    expect(row.metadata).toMatchObject({ model: expect.any(String), provider: "offline" });
    expect(row.metadata).not.toHaveProperty("completionTokens");
  });

  it("a bonus charge left reserved is settled by the cleanup, which takes nothing more", async () => {
    const userId = await bonusOnlyUser("bonus-dies@example.com");
    await runChat({ userId, body, after: processDiesAfterAnswer });
    const prisma = await db();
    const op = await prisma.creditOperation.findFirstOrThrow({ where: { userId, kind: "charge" } });
    expect(op.status).toBe("reserved");
    const charged = await balanceOf(userId);
    expect(charged).toEqual({ sub: 0, bonus: 85 });
    // The cleanup leaves recent reservations alone (they may still be answering) ...
    expect((await settleStaleReservations()).settled).toBe(0);
    expect((await prisma.creditOperation.findUniqueOrThrow({ where: { id: op.id } })).status).toBe("reserved");
    // ... and settles those older than its threshold, keeping the charge.
    expect((await settleStaleReservations(0)).settled).toBeGreaterThanOrEqual(1);
    const settled = await prisma.creditOperation.findUniqueOrThrow({ where: { id: op.id } });
    expect(settled.status).toBe("settled");
    expect(settled.details).toMatchObject({ settledBy: "cleanup" });
    expect(await balanceOf(userId)).toEqual(charged);
  });

  it("normally settles after the answer: operation settled, tokens on the ledger rows", async () => {
    const userId = await bonusOnlyUser("bonus-settles@example.com");
    let later: (() => Promise<unknown>) | null = null;
    await runChat({ userId, body, after: async (task) => void (later = task) });
    const prisma = await db();
    const op = await prisma.creditOperation.findFirstOrThrow({ where: { userId, kind: "charge" } });
    expect(op.status).toBe("reserved"); // answered, not settled yet
    await (later as unknown as () => Promise<unknown>)();
    expect((await prisma.creditOperation.findUniqueOrThrow({ where: { id: op.id } })).status).toBe("settled");
    const rows = await prisma.creditTransaction.findMany({ where: { userId, type: "usage" } });
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.metadata).toMatchObject({ completionTokens: expect.any(Number), cached: false });
  });

  it("writes the settlements queued by concurrent requests together", async () => {
    const { user } = await signIn("batched-settle@example.com");
    const reservations = await Promise.all(
      Array.from({ length: 5 }, (_, i) => reserveCredits({ userId: user.id, amount: 15, operation: "chat", idempotencyKey: `batch-${i}` })),
    );
    reservations.forEach((r, i) => queueSettlement(r, { model: "m", completionTokens: i }));
    await flushSettlements();
    const ops = await (await db()).creditOperation.findMany({ where: { userId: user.id, kind: "charge" } });
    expect(ops.map((o) => o.status)).toEqual(Array(5).fill("settled"));
    expect(ops.map((o) => (o.details as { metadata?: { completionTokens?: number } }).metadata?.completionTokens).sort()).toEqual([0, 1, 2, 3, 4]);
    await flushSettlements(); // nothing queued: no statement, no error
  });

  it("a flush while another is writing waits for its own settlements, written in the next statement", async () => {
    const { user } = await signIn("overlapping-flush@example.com");
    const reserve = (i: number) => reserveCredits({ userId: user.id, amount: 15, operation: "chat", idempotencyKey: `overlap-${i}` });
    const first = await reserve(0);
    queueSettlement(first, { completionTokens: 0 });
    const inFlight = flushSettlements();
    const later = await Promise.all([1, 2, 3].map(reserve));
    later.forEach((r, i) => queueSettlement(r, { completionTokens: i + 1 }));
    // Each caller (one per request's after()) resolves only once everything queued before it is written.
    await Promise.all([flushSettlements(), flushSettlements()]);
    const ops = await (await db()).creditOperation.findMany({ where: { userId: user.id, kind: "charge" } });
    expect(ops.map((o) => o.status)).toEqual(Array(4).fill("settled"));
    await inFlight;
  });

  it("settlements flushed by separate requests moments apart go out in one statement", async () => {
    const { user } = await signIn("gathered-settle@example.com");
    const reservations = await Promise.all([0, 1, 2].map((i) => reserveCredits({ userId: user.id, amount: 15, operation: "chat", idempotencyKey: `gather-${i}` })));
    // Three requests answer one after another, each asking for its settlement (after()).
    const flushes = reservations.map((r) => {
      queueSettlement(r, { model: "m" });
      return flushSettlements();
    });
    await Promise.all(flushes);
    const ops = await (await db()).creditOperation.findMany({ where: { userId: user.id, kind: "charge" } });
    expect(ops.map((o) => o.status)).toEqual(Array(3).fill("settled"));
    // now() is the statement's transaction time: one statement, one timestamp.
    expect(new Set(ops.map((o) => o.updatedAt.getTime())).size).toBe(1);
  });
});

