import { isDatabaseUnavailable, isDatabaseUnreachable } from "@/lib/db/outage";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import type { CreditAllowance } from "./types";

/**
 * Who wants to know what charges did, without the charge knowing who (lib/spend-alerts watches them):
 * a charge settled (its final amount, the buckets after it, the key's window after it) and a charge
 * refused for want of credits. Told off the request's path (setImmediate), one observer's failure or
 * slowness never the caller's; a charge refunded before it settled (its work failed) tells nobody.
 * Observers register by name, once per process whichever bundle registers them (lib/process-state.ts).
 */
export interface SettledCharge {
  accountId: string;
  operation?: string;
  /** Credits finally charged. */
  charged: number;
  /** The account's subscription credits after the settlement. */
  subscriptionCredits: number;
  /** Usable credits after it (subscription and the bonus credits the account may spend). */
  remaining: number;
  /** The allocation and its cycle, as the charge saw them. */
  allowance: CreditAllowance;
  /** A budgeted API key's window after the settlement, and its alert thresholds. */
  key?: { id: string; spent: number; budget: number; period: string | null; windowStart: Date | null; alertThresholds?: number[] };
  /** Made by an organisation's member or with a key: it may count against an organisation's team budgets. */
  teamCharge?: boolean;
  /** A charge to an organisation's wallet: the member who made it (whose caps may have alerts). */
  memberId?: string;
}

export interface ChargeObserver {
  settled?(charge: SettledCharge): Promise<void> | void;
  /** A charge refused for want of credits: what the account had available. */
  refused?(accountId: string, available: number): Promise<void> | void;
}

const observers = processState("chargeObservers", () => new Map<string, ChargeObserver>());

/** Registers (or replaces) the observer of this name. */
export function observeCharges(name: string, observer: ChargeObserver): void {
  observers.set(name, observer);
}

function tell(what: string, call: (o: ChargeObserver) => Promise<void> | void | undefined): void {
  if (observers.size === 0) return;
  setImmediate(() => {
    for (const [name, observer] of observers) {
      Promise.resolve()
        .then(() => call(observer))
        .catch((error: unknown) => {
          // During an outage every charge would log one: the breaker's own lines say it; the next charge evaluates again.
          if (isDatabaseUnreachable(error) || isDatabaseUnavailable(error))
            log.debug(`charge observer skipped: the database is unavailable: ${name}`, { what });
          else log.error(`charge observer failed: ${name}`, { what, error: (error as Error).message });
        });
    }
  });
}

export function chargeSettled(charge: SettledCharge): void {
  tell("settled", (o) => o.settled?.(charge));
}

export function chargeRefused(accountId: string, available: number): void {
  tell("refused", (o) => o.refused?.(accountId, available));
}
