import { expect } from "vitest";
import { db } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { deliver, orderEvent, subscriptionEvent } from "./fixtures";

/** Runs tasks with at most `concurrency` in flight. */
export async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/**
 * Shared by the PGlite and PostgreSQL suites: `identical` deliveries of one order_created body and
 * `variants` differently-framed bodies of the same order, `concurrency` at a time, grant exactly once.
 */
export async function duplicateOrderDeliveries(options: { identical: number; variants: number; concurrency: number; tag: string }) {
  const { user } = await signIn(`dup-${options.tag}@example.com`);
  const orderId = `order-${options.tag}`;
  const event = orderEvent({ id: orderId, userId: user.id, variantId: "local-bonus-pro-5000", total: 2999 });
  const started = Date.now();
  const results = await pool(options.identical + options.variants, options.concurrency, (i) =>
    i < options.identical
      ? deliver(event)
      : deliver(orderEvent({ id: orderId, userId: user.id, variantId: "local-bonus-pro-5000", total: 2999, extra: { attempt: i } })),
  );
  const ms = Date.now() - started;
  expect(results.every((r) => r.status === 200)).toBe(true);
  const identical = results.slice(0, options.identical);
  expect(identical.filter((r) => !r.body.duplicate)).toHaveLength(1);
  const prisma = await db();
  expect(await prisma.bonusPurchase.count({ where: { orderId } })).toBe(1);
  expect(await prisma.creditTransaction.count({ where: { userId: user.id, type: "purchase" } })).toBe(1);
  const purchase = await prisma.bonusPurchase.findUniqueOrThrow({ where: { orderId } });
  expect(purchase).toMatchObject({ credits: 5000, remaining: 5000 });
  expect(await prisma.webhookDelivery.count({ where: { source: "payment", objectId: orderId } })).toBe(1 + options.variants);
  expect(await prisma.webhookDelivery.count({ where: { source: "payment", objectId: orderId, status: { notIn: ["processed"] } } })).toBe(0);
  return { ms, deliveries: results.length };
}

/** Concurrent duplicate and out-of-order subscription events for one subscription end in one record. */
export async function concurrentSubscriptionEvents(options: { copies: number; concurrency: number; tag: string }) {
  const { user } = await signIn(`dupsub-${options.tag}@example.com`);
  const id = `sub-dup-${options.tag}`;
  const events = [
    subscriptionEvent("subscription_created", { id, userId: user.id, variantId: "local-basic-monthly", updatedAt: "2026-11-01T00:00:00Z" }),
    subscriptionEvent("subscription_updated", { id, userId: user.id, variantId: "local-pro-monthly", updatedAt: "2026-11-02T00:00:00Z" }),
  ];
  await pool(options.copies, options.concurrency, (i) => deliver(events[i % 2]));
  const prisma = await db();
  const rows = await prisma.subscription.findMany({ where: { providerSubscriptionId: id } });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ tier: "pro", variantId: "local-pro-monthly", status: "active" });
  expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).tier).toBe("pro");
}
