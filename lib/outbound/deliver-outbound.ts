import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { emailOfEvent } from "./event-email";
import { notifyEndpointDisabled } from "./notify-endpoint-disabled";
import { postWebhook } from "./post-webhook";
import { signedHeaders } from "./sign-payload";
import { sendEmail } from "@/lib/email/send-email";
import { processState } from "@/lib/process-state";

/** How long an event is retried for, from its creation. */
export const RETRY_WINDOW_MS = 24 * 60 * 60_000;
/** The wait after each failed attempt (the last repeats until the window ends): 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];
/** How long one runner holds an endpoint (another instance takes it over after this if the runner died). */
const LEASE_MS = 60_000;
const MAX_PER_ENDPOINT_RUN = 100;

export const retryDelay = (attempts: number) => RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0];

interface HeadRow {
  id: string;
  attempts: number;
  next_attempt_at: Date;
  event_id: string;
  payload: unknown;
  event_created_at: Date;
}

export interface DeliveryRun {
  delivered: number;
  retrying: number;
  failed: number;
}

/**
 * Sends what is due (docs/API-NOTES.md "Spend alerts and webhooks"): each endpoint's pending deliveries
 * one at a time in the order their events were created, by one runner at a time per endpoint (a lease
 * on the endpoint, so several instances never send the same delivery at once nor out of order); a
 * failure stops that endpoint's queue until its retry is due (5 s, 30 s, 2 min, ... 4 h) and after
 * 24 hours the delivery fails for good and the endpoint is disabled, its owners emailed. Emails of
 * alerts go out the same way (each on its own). Run after every commit that wrote events, every 10
 * seconds by each server and by the deliver-webhooks cron job.
 */
export async function deliverDue(now: Date = new Date()): Promise<DeliveryRun> {
  const run: DeliveryRun = { delivered: 0, retrying: 0, failed: 0 };
  const prisma = await db();
  const endpoints = await prisma.$queryRaw<{ endpoint_id: string }[]>`
    SELECT DISTINCT d.endpoint_id FROM outbound_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.status = 'pending' AND d.next_attempt_at <= ${now} AND e.enabled AND (e.locked_until IS NULL OR e.locked_until < now())
     LIMIT 50`;
  for (const { endpoint_id } of endpoints) await runEndpoint(endpoint_id, now, run);
  await sendDueEmails(now, run);
  return run;
}

async function runEndpoint(endpointId: string, now: Date, run: DeliveryRun): Promise<void> {
  const prisma = await db();
  const claimed = await prisma.$queryRaw<{ id: string; url: string; secret: string }[]>`
    UPDATE webhook_endpoints SET locked_until = now() + ${`${LEASE_MS} milliseconds`}::interval
     WHERE id = ${endpointId} AND enabled AND (locked_until IS NULL OR locked_until < now())
     RETURNING id, url, secret`;
  const endpoint = claimed[0];
  if (!endpoint) return;
  try {
    for (let i = 0; i < MAX_PER_ENDPOINT_RUN; i++) {
      const [head] = await prisma.$queryRaw<HeadRow[]>`
        SELECT d.id, d.attempts, d.next_attempt_at, d.event_id, ev.payload, ev.created_at AS event_created_at
          FROM outbound_deliveries d JOIN outbound_events ev ON ev.id = d.event_id
         WHERE d.endpoint_id = ${endpointId} AND d.status = 'pending'
         ORDER BY ev.seq ASC LIMIT 1`;
      if (!head || head.next_attempt_at > now) return;
      const body = JSON.stringify(head.payload);
      const outcome = await postWebhook(endpoint.url, body, signedHeaders(endpoint.secret, head.event_id, body));
      const attempts = head.attempts + 1;
      if (outcome.ok) {
        await prisma.outboundDelivery.update({
          where: { id: head.id },
          data: {
            status: "delivered",
            attempts,
            lastAttemptAt: new Date(),
            lastStatus: outcome.status,
            lastError: null,
            deliveredAt: new Date(),
          },
        });
        run.delivered++;
        metrics().outboundDeliveries.inc({ outcome: "delivered" });
        continue;
      }
      const expired = now.getTime() + retryDelay(attempts) - new Date(head.event_created_at).getTime() > RETRY_WINDOW_MS;
      await prisma.outboundDelivery.update({
        where: { id: head.id },
        data: {
          status: expired ? "failed" : "pending",
          attempts,
          lastAttemptAt: new Date(),
          lastStatus: outcome.status,
          lastError: outcome.error,
          nextAttemptAt: new Date(now.getTime() + retryDelay(attempts)),
        },
      });
      metrics().outboundDeliveries.inc({ outcome: expired ? "failed" : "retrying" });
      if (!expired) {
        run.retrying++;
        return;
      }
      run.failed++;
      // A day of failures: the endpoint is switched off (its later events wait, not lost) and its owners told.
      await prisma.webhookEndpoint.update({
        where: { id: endpointId },
        data: { enabled: false, disabledAt: new Date(), disabledReason: `Every attempt failed for 24 hours: ${outcome.error}` },
      });
      log.warn("outbound webhook endpoint disabled", { endpointId, error: outcome.error });
      await notifyEndpointDisabled(endpointId).catch((error) =>
        log.error("endpoint-disabled email not sent", { endpointId, error: (error as Error).message }),
      );
      return;
    }
  } finally {
    await prisma.webhookEndpoint.updateMany({ where: { id: endpointId }, data: { lockedUntil: null } });
  }
}

/** Alert emails due: claimed a few at a time (a claim pushes the next attempt out, so instances never send one twice at once). */
async function sendDueEmails(now: Date, run: DeliveryRun): Promise<void> {
  const prisma = await db();
  const due = await prisma.$queryRaw<
    { id: string; email_to: string; attempts: number; payload: unknown; account_id: string; event_created_at: Date }[]
  >`
    UPDATE outbound_deliveries d SET next_attempt_at = now() + interval '2 minutes'
      FROM outbound_events ev
     WHERE ev.id = d.event_id AND d.id IN (
       SELECT id FROM outbound_deliveries WHERE status = 'pending' AND email_to IS NOT NULL AND next_attempt_at <= ${now}
        ORDER BY created_at LIMIT 20 FOR UPDATE SKIP LOCKED)
     RETURNING d.id, d.email_to, d.attempts, ev.payload, ev.account_id, ev.created_at AS event_created_at`;
  for (const d of due) {
    const attempts = d.attempts + 1;
    try {
      await sendEmail({ to: d.email_to, type: "alert", ...emailOfEvent(d.payload as never) });
      await prisma.outboundDelivery.update({
        where: { id: d.id },
        data: { status: "delivered", attempts, lastAttemptAt: new Date(), deliveredAt: new Date(), lastError: null },
      });
      run.delivered++;
    } catch (error) {
      const expired = now.getTime() + retryDelay(attempts) - new Date(d.event_created_at).getTime() > RETRY_WINDOW_MS;
      await prisma.outboundDelivery.update({
        where: { id: d.id },
        data: {
          status: expired ? "failed" : "pending",
          attempts,
          lastAttemptAt: new Date(),
          lastError: (error as Error).message.slice(0, 500),
          nextAttemptAt: new Date(now.getTime() + retryDelay(attempts)),
        },
      });
      if (expired) run.failed++;
      else run.retrying++;
    }
  }
}

const runner = processState("outboundRunner", () => ({ running: false, again: false }));

/** Sends what is due soon after a commit wrote events (off the request; one run at a time per process). */
export function deliverSoon(): void {
  if (runner.running) {
    runner.again = true;
    return;
  }
  runner.running = true;
  setImmediate(async () => {
    try {
      do {
        runner.again = false;
        await deliverDue();
      } while (runner.again);
    } catch (error) {
      log.error("outbound delivery run failed", { error: (error as Error).message });
    } finally {
      runner.running = false;
    }
  });
}

/** Waits for this process's delivery run (tests; a stopping server). */
export async function drainOutbound(): Promise<void> {
  while (runner.running) await new Promise((r) => setTimeout(r, 5));
}
