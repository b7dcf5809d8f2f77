import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { log } from "@/lib/log";
import { db } from "./client";
import { processState } from "@/lib/process-state";

/**
 * This server process, as the database knows it (server_instances): registered at start, a
 * heartbeat every HEARTBEAT_MS while it runs, stopped when it shuts down. Every charge records the
 * instance that reserved it; the reservation sweep refunds only the charges of an instance that is
 * gone (stopped, or silent for LOST_AFTER_MS), never one still answering (lib/credits).
 */
// One id per process: Next bundles this module into more than one chunk (the start-up hook's and the
// routes'), each with its own module scope, so the id lives on the process's global object.
export const INSTANCE_ID = processState("serverInstanceId", () => randomUUID());
export const HEARTBEAT_MS = 20_000;
/** An instance whose heartbeat is older than this is gone (three heartbeats missed and then some). */
export const LOST_AFTER_MS = 90_000;

let timer: NodeJS.Timeout | null = null;

/**
 * Registers this process and starts its heartbeat (idempotent). Each heartbeat writes the row anew,
 * so a database that was down at start learns of this instance as soon as it is back.
 */
export async function registerInstance(): Promise<void> {
  if (!timer) {
    timer = setInterval(() => {
      void heartbeat().catch((error) => log.warn("instance heartbeat failed", { error: (error as Error).message }));
    }, HEARTBEAT_MS);
    timer.unref();
  }
  await heartbeat();
}

async function heartbeat(): Promise<void> {
  const prisma = await db();
  await prisma.$executeRaw`
    INSERT INTO server_instances (id, host, pid, started_at, heartbeat_at) VALUES (${INSTANCE_ID}, ${hostname()}, ${process.pid}, now(), now())
    ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), stopped_at = NULL`;
  // Rows of instances gone for a day go (their charges were swept long before).
  await prisma.$executeRaw`DELETE FROM server_instances WHERE heartbeat_at < now() - interval '1 day'`;
}

/** Marks this process stopped (a graceful shutdown, after its settlements are written). */
export async function stopInstance(): Promise<void> {
  if (timer) clearInterval(timer);
  timer = null;
  const prisma = await db();
  await prisma.$executeRaw`UPDATE server_instances SET stopped_at = now() WHERE id = ${INSTANCE_ID}`;
}
