import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reserveCredits } from "@/lib/credits";
import { db, dbKind } from "@/lib/db/client";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { balanceOf, startStripeKit, type StripeKit } from "../integration/billing/stripe-kit";

await useFreshPostgres();
let kit: StripeKit;
beforeAll(async () => {
  kit = await startStripeKit();
});
afterAll(async () => {
  await kit.close();
});

describe("disputes on PostgreSQL", () => {
  it("a dispute opened and lost while 32 concurrent charges draw on the pack: the pack's 500 credits leave once (frozen, taken or owed), the ledger sums to the balance", async () => {
    expect(await dbKind()).toBe("postgres");
    for (let round = 0; round < 3; round++) {
      const { user, cookie } = await kit.subscribedToBasic(`dispute-race-${round}-${Date.now()}@example.com`);
      const prisma = await db();
      await prisma.user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
      await kit.buyPack(cookie);
      const receipt = await prisma.payment.findFirstOrThrow({ where: { userId: user.id, kind: "pack" } });
      const charges = Promise.allSettled(
        Array.from({ length: 32 }, () => reserveCredits({ userId: user.id, amount: 40, operation: "chat" })),
      );
      const opened = kit.control("disputes", { payment_intent: receipt.providerPaymentId });
      await Promise.all([charges, opened]);
      expect((await kit.control("disputes", { payment_intent: receipt.providerPaymentId, status: "lost" })).status).toBe(200);
      const charged = (await charges).filter((c) => c.status === "fulfilled").length;
      const row = await prisma.payment.findUniqueOrThrow({ where: { id: receipt.id } });
      expect(row).toMatchObject({ status: "charged_back", creditsTakenBack: 500, creditsHeld: 0 });
      const balance = await balanceOf(user.id);
      expect(balance.ledger).toBe(balance.total);
      // 1,500 credits less what was charged, less the whole pack: what the charges had spent of it is owed.
      expect(balance.total).toBe(1500 - 40 * charged - 500);
      await expect(reserveCredits({ userId: user.id, amount: 1, operation: "chat" })).rejects.toMatchObject({
        code: "insufficient_credits",
      });
    }
  });
});
