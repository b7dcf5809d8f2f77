import { isDatabaseUnavailable, isDatabaseUnreachable, whenDatabaseBack } from "@/lib/db/outage";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { clearSettlementJournal, journalKeptSettlement, type KeptSettlement } from "./settlement-journal";

export type { KeptSettlement } from "./settlement-journal";

/**
 * Settlements the database could not take (an outage): kept in memory, bounded, and written again
 * with backoff (1 s, 2 s, 4 s ... 30 s) until they land. A retry is idempotent: settle_charges only
 * settles a charge still `reserved`, so a settlement that landed before its answer was lost is never
 * applied twice. The client was told the charge the retry writes. A stopping server waits for them
 * (bounded); what is left then is logged with its amounts (docs/OBSERVABILITY.md "Database outages").
 */
export const MAX_KEPT_SETTLEMENTS = 10_000;
const MAX_DELAY_MS = 30_000;

interface RetryState {
  kept: KeptSettlement[];
  timer: NodeJS.Timeout | null;
  delay: number;
  running: Promise<void> | null;
  dropped: number;
}

const state = () =>
  processState<RetryState>("settlement-retries", () => ({ kept: [], timer: null, delay: 1000, running: null, dropped: 0 }));

/** Whether a settlement's failure is the database's absence (kept for a retry), not the settlement's own fault. */
export function isOutage(error: unknown): boolean {
  return isDatabaseUnreachable(error) || isDatabaseUnavailable(error);
}

/** Keeps a settlement for a retry; false when the bound is reached (logged: the sweep will refund that charge). */
export function keepSettlement(settlement: KeptSettlement, retry: (s: KeptSettlement) => Promise<unknown>): boolean {
  const s = state();
  if (s.kept.length >= MAX_KEPT_SETTLEMENTS) {
    s.dropped++;
    log.error("settlement dropped: too many kept during a database outage", {
      reservationId: settlement.reservation.id,
      amount: settlement.input.amount ?? settlement.reservation.amount,
      dropped: s.dropped,
    });
    return false;
  }
  if (s.kept.length === 0) log.warn("settlements kept until the database is back", { reservationId: settlement.reservation.id });
  s.kept.push(settlement);
  if (settlement.attempts === 0) journalKeptSettlement(settlement);
  schedule(retry);
  return true;
}

function schedule(retry: (s: KeptSettlement) => Promise<unknown>): void {
  const s = state();
  // The breaker finding the database back sends them at once, not at their next backoff (up to 30 s).
  whenDatabaseBack("kept-settlements", () => {
    if (!s.timer) return;
    clearTimeout(s.timer);
    s.timer = null;
    s.delay = 1000;
    runNow(retry);
  });
  if (s.timer || s.running) return;
  s.timer = setTimeout(() => {
    s.timer = null;
    runNow(retry);
  }, s.delay);
  s.timer.unref?.();
}

function runNow(retry: (s: KeptSettlement) => Promise<unknown>): void {
  const s = state();
  s.running = retryAll(retry).finally(() => {
    s.running = null;
    if (s.kept.length > 0) {
      s.delay = Math.min(MAX_DELAY_MS, s.delay * 2);
      schedule(retry);
    } else s.delay = 1000;
  });
}

/** One pass: each kept settlement written again; one the database still cannot take is kept again by the writer. */
async function retryAll(retry: (s: KeptSettlement) => Promise<unknown>): Promise<void> {
  const s = state();
  const batch = s.kept.splice(0, s.kept.length);
  let landed = 0;
  await Promise.all(
    batch.map((k) =>
      retry({ ...k, attempts: k.attempts + 1 }).then(
        (written) => {
          if (!(written as { deferred?: boolean } | undefined)?.deferred) landed++;
        },
        (error) =>
          log.error("kept settlement failed for another reason; the charge stays reserved", { reservationId: k.reservation.id, error }),
      ),
    ),
  );
  if (s.kept.length === 0) {
    clearSettlementJournal();
    if (landed > 0) log.info("kept settlements written", { count: landed });
  }
}

/** Settlements kept and not written yet. */
export function keptSettlements(): number {
  return state().kept.length + (state().running ? 1 : 0);
}

/** For a stopping server: retries at once and waits for the kept settlements, at most `ms`; answers what is left. */
export async function flushKeptSettlements(retry: (s: KeptSettlement) => Promise<unknown>, ms: number): Promise<KeptSettlement[]> {
  const s = state();
  const deadline = Date.now() + ms;
  while ((s.kept.length > 0 || s.running) && Date.now() < deadline) {
    if (s.timer) {
      clearTimeout(s.timer);
      s.timer = null;
    }
    if (!s.running && s.kept.length > 0) s.running = retryAll(retry).finally(() => (s.running = null));
    await Promise.race([s.running, new Promise((r) => setTimeout(r, Math.max(0, Math.min(1000, deadline - Date.now()))))]);
    if (s.kept.length > 0 && !s.running) await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(0, deadline - Date.now()))));
  }
  return [...s.kept];
}
