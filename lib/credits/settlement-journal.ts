import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/config/env";
import { INSTANCE_ID } from "@/lib/db/instance";
import { log } from "@/lib/log";
import type { Reservation } from "./types";

/** A settlement the database could not take, kept until it lands. */
export interface KeptSettlement {
  reservation: Reservation;
  input: { amount?: number; metadata?: Record<string, unknown>; costMicros?: number };
  attempts: number;
}

/**
 * The settlements kept through a database outage, on local disk as well as in memory
 * ($DATA_DIR/settlements/kept-<instance>.jsonl, one line each), so a process that dies before the
 * database is back does not take them with it: the next server started on the machine writes them
 * (replayKeptSettlements, before its first sweep). Writing one twice changes nothing (a charge is
 * settled only while `reserved`). The file is removed once everything kept has landed.
 */
function journalDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ env().dataDir, "settlements");
}

const ownFile = () => path.join(/*turbopackIgnore: true*/ journalDir(), `kept-${INSTANCE_ID}.jsonl`);

/** Appends a kept settlement (a failure to write is logged: the memory copy still retries it). */
export function journalKeptSettlement(k: KeptSettlement): void {
  try {
    mkdirSync(/*turbopackIgnore: true*/ journalDir(), { recursive: true });
    const r = k.reservation;
    appendFileSync(
      ownFile(),
      `${JSON.stringify({ id: r.id, userId: r.userId, reserved: r.amount, operation: r.operation ?? null, input: k.input })}\n`,
    );
  } catch (error) {
    log.warn("kept settlement not journaled", { reservationId: k.reservation.id, error: (error as Error).message });
  }
}

/** Everything kept has landed: the journal goes. */
export function clearSettlementJournal(): void {
  rmSync(ownFile(), { force: true });
}

/**
 * The journals other processes on this machine left (they stopped or died with settlements kept):
 * each is claimed by a rename (one claimant wins) and its settlements handed to `write`. Answers how
 * many were read.
 */
export async function replayKeptSettlements(write: (k: KeptSettlement) => Promise<unknown>): Promise<number> {
  let files: string[];
  try {
    files = readdirSync(/*turbopackIgnore: true*/ journalDir()).filter(
      (f) => f.startsWith("kept-") && f.endsWith(".jsonl") && f !== path.basename(ownFile()),
    );
  } catch {
    return 0;
  }
  let count = 0;
  for (const file of files) {
    const claimed = path.join(/*turbopackIgnore: true*/ journalDir(), `replaying-${INSTANCE_ID}-${file}`);
    try {
      renameSync(path.join(/*turbopackIgnore: true*/ journalDir(), file), claimed);
    } catch {
      continue; // another process claimed it
    }
    const lines = readFileSync(claimed, "utf8").split("\n").filter(Boolean);
    for (const line of lines) {
      try {
        const e = JSON.parse(line) as {
          id: string;
          userId: string;
          reserved: number;
          operation: string | null;
          input: KeptSettlement["input"];
        };
        await write({
          reservation: { id: e.id, userId: e.userId, amount: e.reserved, charged: true, remaining: 0, operation: e.operation ?? undefined },
          input: e.input,
          attempts: 0,
        });
        count++;
      } catch (error) {
        log.error("a journaled settlement could not be written", { file, error: (error as Error).message });
      }
    }
    rmSync(claimed, { force: true });
  }
  if (count > 0) log.info("settlements kept by a stopped server written", { count, files: files.length });
  return count;
}
