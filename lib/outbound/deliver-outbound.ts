import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { emailOfEvent } from "./event-email";
import { notifyEndpointDisabled } from "./notify-endpoint-disabled";
import { postWebhook } from "./post-webhook";
import { signedHeaders } from "./sign-payload";
import { slackBodyOf } from "./slack-body";
import { sendEmail } from "@/lib/email/send-email";
import { processState } from "@/lib/process-state";

/** How long an event is retried for, from its creation: 3 days (a receiver down over a weekend gets its events). */
export const RETRY_WINDOW_MS = 3 * 24 * 60 * 60_000;
/** The wait after each failed attempt (the last repeats until the window ends): 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000];
/**
 * How long a runner's hold on an endpoint lasts unless renewed: renewed before every send (a send takes
 * at most SEND_TIMEOUT_MS), so a run of any length keeps it, and another instance takes over only
 * after the runner died.
 */
const LEASE_MS = 60_000;
const MAX_PER_ENDPOINT_RUN = 100;
/** Endpoints one process sends to at once: each has its own queue, so a slow one holds one slot, never the others. */
export const MAX_ENDPOINTS_IN_FLIGHT = 8;
/**
 * An endpoint's run gives its slot back after this long (the rest waits for the next pass, right
 * after): a slow receiver cannot hold a slot for a whole backlog while other endpoints wait for one.
 */
const RUN_BUDGET_MS = 20_000;

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

// Per process (lib/process-state.ts): the endpoints being sent to here, and whether a pass is running.
const runner = processState("outboundRunner", () => ({
  inFlight: new Map<string, Promise<void>>(),
  passing: false,
  again: false,
  emailing: null as Promise<void> | null,
  emailsAgain: false,
  lastExpiry: 0,
}));

/**
 * Sends what is due (docs/API-NOTES.md "Spend alerts and webhooks"): each endpoint's pending deliveries
 * one at a time in the order their events were created, by one runner at a time per endpoint (a lease
 * on the endpoint, renewed as the run goes, so several instances never send the same delivery at once
 * nor out of order); endpoints side by side, at most MAX_ENDPOINTS_IN_FLIGHT per process, so a slow or
 * failing receiver delays only its own queue. A failure stops that endpoint's queue until its retry is
 * due (5 s, 30 s, 2 min, ... 8 h) and after 3 days the delivery fails for good and the endpoint is
 * disabled, its owners emailed. Emails of alerts go out the same way (each on its own). Run after
 * every commit that wrote events, every 10 seconds by each server and by the deliver-webhooks cron
 * job. `waitForEndpoints: false` (the servers' own passes) starts the endpoints' runs and returns.
 */
export async function deliverDue(now: Date = new Date(), options: { waitForEndpoints?: boolean } = {}): Promise<DeliveryRun> {
  const run: DeliveryRun = { delivered: 0, retrying: 0, failed: 0 };
  await expireWaitingDeliveries(now);
  const started = await startDueEndpoints(now, run);
  const emails = startDueEmails(now, run);
  if (options.waitForEndpoints !== false) await Promise.all([...started, emails]);
  return run;
}

/** Starts a run for each endpoint with something due that this process is not already sending to, within the slots free. */
async function startDueEndpoints(now: Date, run: DeliveryRun): Promise<Promise<void>[]> {
  const free = MAX_ENDPOINTS_IN_FLIGHT - runner.inFlight.size;
  if (free <= 0) {
    runner.again = true;
    return [];
  }
  const prisma = await db();
  const busy = [...runner.inFlight.keys()];
  // Endpoints whose queue head is due (a later delivery waits for the head: order per endpoint), the
  // longest-waiting first, so no endpoint is starved by others that always have something due.
  const endpoints = await prisma.$queryRaw<{ endpoint_id: string }[]>`
    WITH due AS (
      SELECT DISTINCT d.endpoint_id FROM outbound_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= ${now} AND d.endpoint_id IS NOT NULL
         AND NOT (d.endpoint_id = ANY(${busy}::text[])))
    SELECT e.id AS endpoint_id FROM due JOIN webhook_endpoints e ON e.id = due.endpoint_id
     CROSS JOIN LATERAL (
       SELECT d.next_attempt_at FROM outbound_deliveries d JOIN outbound_events ev ON ev.id = d.event_id
        WHERE d.endpoint_id = e.id AND d.status = 'pending' ORDER BY ev.seq ASC LIMIT 1) head
     WHERE e.enabled AND (e.locked_until IS NULL OR e.locked_until < now()) AND head.next_attempt_at <= ${now}
     ORDER BY head.next_attempt_at LIMIT ${free + 1}`;
  if (endpoints.length > free) runner.again = true;
  return endpoints.slice(0, free).map(({ endpoint_id: id }) => {
    const task = runEndpoint(id, now, run)
      .catch((error) => log.error("outbound endpoint run failed", { endpointId: id, error: (error as Error).message }))
      .finally(() => {
        runner.inFlight.delete(id);
        // A slot came free: whatever waited for one, for this endpoint while it ran, or the rest of a run
        // that used its budget goes next (one query when nothing is due).
        deliverSoon();
      });
    runner.inFlight.set(id, task);
    return task;
  });
}

/**
 * Deliveries that waited past the retry window without an attempt because their endpoint was
 * disabled the whole time fail for good, as a failing endpoint's would: what an endpoint gets when it
 * is enabled again is the last 3 days of its events. Every disabled endpoint's at most once a
 * minute per process; one endpoint's (`endpointId`) at once, when it is enabled again.
 */
export async function expireWaitingDeliveries(now: Date, endpointId?: string): Promise<number> {
  if (!endpointId) {
    if (now.getTime() - runner.lastExpiry < 60_000) return 0;
    runner.lastExpiry = now.getTime();
  }
  const prisma = await db();
  const cutoff = new Date(now.getTime() - RETRY_WINDOW_MS);
  return prisma.$executeRaw`
    UPDATE outbound_deliveries d SET status = 'failed',
           last_error = 'Not sent: its endpoint was disabled for the 3 days an event is kept'
      FROM outbound_events ev, webhook_endpoints e
     WHERE ev.id = d.event_id AND e.id = d.endpoint_id AND d.status = 'pending' AND d.attempts = 0 AND ev.created_at < ${cutoff}
       AND (e.id = ${endpointId ?? null}::text OR (${endpointId ?? null}::text IS NULL AND NOT e.enabled))`;
}

/** Renews this runner's lease on an endpoint; false when it is no longer ours (it ran out and another runner took it, or the endpoint was disabled). */
async function renewLease(endpointId: string, token: string): Promise<boolean> {
  const prisma = await db();
  const renewed = await prisma.$executeRaw`
    UPDATE webhook_endpoints SET locked_until = now() + ${`${LEASE_MS} milliseconds`}::interval
     WHERE id = ${endpointId} AND enabled AND lease_token = ${token}`;
  return renewed > 0;
}

async function runEndpoint(endpointId: string, now: Date, run: DeliveryRun): Promise<void> {
  const prisma = await db();
  const token = randomUUID();
  const claimed = await prisma.$queryRaw<{ id: string; url: string; secret: string; previous_secret: string | null; format: string }[]>`
    UPDATE webhook_endpoints SET locked_until = now() + ${`${LEASE_MS} milliseconds`}::interval, lease_token = ${token}
     WHERE id = ${endpointId} AND enabled AND (locked_until IS NULL OR locked_until < now())
     RETURNING id, url, secret, CASE WHEN previous_secret_expires_at > now() THEN previous_secret END AS previous_secret, format`;
  const endpoint = claimed[0];
  if (!endpoint) return;
  const began = Date.now();
  try {
    for (let i = 0; i < MAX_PER_ENDPOINT_RUN; i++) {
      if (Date.now() - began > RUN_BUDGET_MS) {
        runner.again = true;
        return;
      }
      const [head] = await prisma.$queryRaw<HeadRow[]>`
        SELECT d.id, d.attempts, d.next_attempt_at, d.event_id, ev.payload, ev.created_at AS event_created_at
          FROM outbound_deliveries d JOIN outbound_events ev ON ev.id = d.event_id
         WHERE d.endpoint_id = ${endpointId} AND d.status = 'pending'
         ORDER BY ev.seq ASC LIMIT 1`;
      if (!head || head.next_attempt_at > now) return;
      // Still ours, for another LEASE_MS: a send never outlives the lease it started under.
      if (i > 0 && !(await renewLease(endpointId, token))) {
        log.warn("outbound endpoint lease lost mid-run", { endpointId });
        return;
      }
      const body = endpoint.format === "slack" ? slackBodyOf(head.payload) : JSON.stringify(head.payload);
      const outcome = await postWebhook(
        endpoint.url,
        body,
        signedHeaders(endpoint.secret, head.event_id, body, new Date(), endpoint.previous_secret),
      );
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
      // 3 days of failures: the endpoint is switched off (its later events wait, not lost) and its owners told.
      await prisma.webhookEndpoint.update({
        where: { id: endpointId },
        data: { enabled: false, disabledAt: new Date(), disabledReason: `Every attempt failed for 3 days: ${outcome.error}` },
      });
      log.warn("outbound webhook endpoint disabled", { endpointId, error: outcome.error });
      await notifyEndpointDisabled(endpointId).catch((error) =>
        log.error("endpoint-disabled email not sent", { endpointId, error: (error as Error).message }),
      );
      return;
    }
    runner.again = true;
  } finally {
    // Only our own lease is given back (one taken over after ours ran out is the new runner's).
    await prisma.webhookEndpoint.updateMany({
      where: { id: endpointId, leaseToken: token },
      data: { lockedUntil: null, leaseToken: null },
    });
  }
}

/** Sends the alert emails due, beside the endpoints' runs (one batch at a time per process; a slow mailer holds up no endpoint). */
function startDueEmails(now: Date, run: DeliveryRun): Promise<void> {
  if (runner.emailing) {
    runner.emailsAgain = true;
    return runner.emailing;
  }
  runner.emailsAgain = false;
  const task = sendDueEmails(now, run)
    .catch((error) => log.error("alert emails run failed", { error: (error as Error).message }))
    .finally(() => {
      runner.emailing = null;
      // Alerts that fired while this batch was being sent.
      if (runner.emailsAgain) deliverSoon();
    });
  runner.emailing = task;
  return task;
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

/**
 * Sends what is due soon after a commit wrote events (off the request; one pass at a time per process,
 * which starts the endpoints' runs and does not wait for them: a slow receiver never holds up the next pass).
 */
export function deliverSoon(): void {
  if (runner.passing) {
    runner.again = true;
    return;
  }
  runner.passing = true;
  setImmediate(async () => {
    try {
      do {
        runner.again = false;
        await deliverDue(new Date(), { waitForEndpoints: false });
      } while (runner.again && runner.inFlight.size < MAX_ENDPOINTS_IN_FLIGHT);
    } catch (error) {
      log.error("outbound delivery run failed", { error: (error as Error).message });
    } finally {
      runner.passing = false;
    }
  });
}

/** Waits for this process's passes and the endpoint runs they started (tests; a stopping server). */
export async function drainOutbound(): Promise<void> {
  while (runner.passing || runner.inFlight.size > 0 || runner.emailing) {
    await Promise.all([...runner.inFlight.values(), runner.emailing]);
    await new Promise((r) => setTimeout(r, 5));
  }
}
