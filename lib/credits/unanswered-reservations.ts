import { isDatabaseUnavailable, isDatabaseUnreachable, whenDatabaseBack } from "@/lib/db/outage";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { refundReservation } from "./refund-reservation";

/**
 * Reservations whose statement may have been committed though its answer never arrived (the
 * connection failed mid-statement). The caller was refused (503) and will never settle or refund it,
 * and the crash sweep leaves a live process's charges alone, so without this its credits would stay
 * held for as long as the process lives. Their ids are ours (made before the statement): each is
 * looked up once the database answers and refunded if it is there and still `reserved` (refund_charge
 * refunds nothing else, so a refund is never applied twice). A reservation not found is looked for
 * again (NOT_FOUND_LOOKS times, LOOK_AGAIN_MS apart: its statement may still wait on a row lock), then
 * forgotten. Bounded; a process that dies with some leaves them to the sweep.
 */
export const MAX_UNANSWERED = 10_000;
const NOT_FOUND_LOOKS = 3;
const LOOK_AGAIN_MS = 1_000;
const MAX_DELAY_MS = 30_000;

export interface UnansweredReservation {
  id: string;
  userId: string;
  amount: number;
  operation: string;
}

interface Entry extends UnansweredReservation {
  looks: number;
}

const state = () =>
  processState("unanswered-reservations", () => ({
    entries: new Map<string, Entry>(),
    timer: null as NodeJS.Timeout | null,
    delay: LOOK_AGAIN_MS,
    running: null as Promise<void> | null,
  }));

/** Whether a reservation statement's failure may have come after its commit (its connection failed). */
export function mayHaveLanded(error: unknown): boolean {
  return isDatabaseUnreachable(error);
}

/** Keeps a reservation whose answer was lost, to be refunded once the database answers. */
export function keepUnansweredReservation(reservation: UnansweredReservation): void {
  const s = state();
  if (s.entries.size >= MAX_UNANSWERED) {
    log.error("unanswered reservation not kept: too many during a database outage; the sweep refunds it when this process stops", {
      reservationId: reservation.id,
    });
    return;
  }
  s.entries.set(reservation.id, { ...reservation, looks: 0 });
  whenDatabaseBack("unanswered-reservations", () => {
    if (!s.timer) return;
    clearTimeout(s.timer);
    s.timer = null;
    s.delay = LOOK_AGAIN_MS;
    run();
  });
  schedule();
}

/** Reservations kept and not yet resolved (tests). */
export function unansweredReservations(): number {
  return state().entries.size;
}

function schedule(): void {
  const s = state();
  if (s.timer || s.running || s.entries.size === 0) return;
  s.timer = setTimeout(() => {
    s.timer = null;
    run();
  }, s.delay);
  s.timer.unref?.();
}

function run(): void {
  const s = state();
  if (s.running) return;
  s.running = lookAll().finally(() => {
    s.running = null;
    schedule();
  });
}

async function lookAll(): Promise<void> {
  const s = state();
  let outage = false;
  let refunded = 0;
  for (const entry of [...s.entries.values()]) {
    try {
      const { refunded: credits } = await refundReservation(
        { id: entry.id, userId: entry.userId, amount: entry.amount, charged: true, remaining: 0, operation: entry.operation },
        { reason: "unanswered" },
      );
      // Refunded now, or found settled or refunded already: done either way.
      s.entries.delete(entry.id);
      if (credits > 0) refunded++;
    } catch (error) {
      if (isDatabaseUnreachable(error) || isDatabaseUnavailable(error)) {
        outage = true;
        break;
      }
      if (isAppError(error) && error.code === "not_found") {
        // Not written (the statement never landed), or still waiting on a lock: a few looks, then forgotten.
        if (++entry.looks >= NOT_FOUND_LOOKS) s.entries.delete(entry.id);
        continue;
      }
      log.error("unanswered reservation could not be refunded; the sweep refunds it when this process stops", {
        reservationId: entry.id,
        error,
      });
      s.entries.delete(entry.id);
    }
  }
  if (refunded > 0) log.info("unanswered reservations refunded", { count: refunded });
  s.delay = outage ? Math.min(MAX_DELAY_MS, s.delay * 2) : LOOK_AGAIN_MS;
}
