import { env } from "@/lib/config/env";
import { checkAiConfig } from "@/lib/ai/check-ai-config";
import { configurationProblems, describeProblems } from "./check-configuration";
import { log } from "@/lib/log";
import { setAppShutdown } from "./app-shutdown";

/**
 * What a Node server process does once at start (called by instrumentation.ts):
 * validates the environment (exit 1 with the list of problems), opens (and on the embedded default
 * migrates) the database, and starts the RAG knowledge indexing in the background.
 */
export async function startServer(options: { exit?: (code: number) => never } = {}): Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  // The standalone server checked all of it before listening (scripts/preflight.ts); `next dev` and
  // tests come here first.
  const problems = configurationProblems();
  if (problems.length > 0) {
    console.error(describeProblems(problems));
    exit(1);
    return;
  }
  const e = env();
  if (e.isProduction && e.devLoginEnabled) {
    log.warn(
      "AUTH_DEV_LOGIN is on in production (AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION=true): anyone can sign in as any email address. Use it for a closed demo only.",
    );
  }
  logAiPricing(checkAiConfig().limits);
  // Build the tokenizers' tables now, before the first request: the first count would otherwise hold
  // the event loop for a few hundred milliseconds on someone's request.
  const { warmTokenizers } = await import("@/lib/ai/pricing/tokens");
  warmTokenizers();

  const started = Date.now();
  try {
    await openDatabase();
    log.info("database ready", { kind: await (await import("@/lib/db/client")).dbKind(), ms: Date.now() - started });
  } catch (error) {
    // Not fatal: /api/health answers 503 and requests answer 503 until the database answers; the
    // start-up steps are retried in the background within DATABASE_STARTUP_RETRY_SECONDS.
    log.error("database unavailable at start-up; retrying in the background", {
      error: (error as Error).message,
      retryForSeconds: e.DATABASE_STARTUP_RETRY_SECONDS,
    });
    void retryOpenDatabase(started, e.DATABASE_STARTUP_RETRY_SECONDS * 1000, exit);
  }

  // What a stopping server does once its requests are done (scripts/preflight.ts calls it on SIGTERM):
  // the settlements queued after answers are written, then the database pool is closed.
  setAppShutdown(async () => {
    const { drainSettlements, flushKeptSettlementsBeforeExit, pendingSettlements } = await import("@/lib/credits");
    const { closeDb } = await import("@/lib/db/client");
    const { stopInstance } = await import("@/lib/db/instance");
    const { flushSlotReleases } = await import("@/lib/db/ai-slots");
    const pending = pendingSettlements();
    await drainSettlements();
    // Settlements kept through a database outage: written now if the database is back, at most 10 s.
    const unwritten = await flushKeptSettlementsBeforeExit(10_000);
    // AI slots given back and not yet deleted (PostgreSQL); the others free a stopped instance's slots anyway.
    await flushSlotReleases().catch(() => undefined);
    await stopInstance().catch((error) => log.warn("marking this instance stopped failed", { error: (error as Error).message }));
    await closeDb();
    log.info("settlements written and database closed", { settlementsPending: pending, settlementsNotWritten: unwritten });
  });

  if (env().RAG_INDEX_ON_START) void indexKnowledgeInBackground();
  void sweepUploadsInBackground();
  refundStaleReservationsEvery(RESERVATION_SWEEP_MS);
  deliverOutboundEvery(OUTBOUND_DELIVERY_MS);
  if (e.PAYMENT_PROVIDER === "stripe") payAutoRechargesEvery(AUTO_RECHARGE_MS);
}

/**
 * The database's start-up steps: open it (and on the embedded default migrate it), register this
 * process as a live instance (its heartbeat keeps the sweep off its charges), write the settlements a
 * stopped server journaled through an outage before any sweep, and check vector support.
 */
async function openDatabase(): Promise<void> {
  const { db } = await import("@/lib/db/client");
  await db();
  const { registerInstance } = await import("@/lib/db/instance");
  await registerInstance();
  // Settlements a stopped server on this machine kept through an outage: written before the first
  // sweep, which would otherwise refund those delivered answers.
  const { replayJournaledSettlements } = await import("@/lib/credits");
  await replayJournaledSettlements();
  // Said at start, not at the first question: what knowledge search loses without pgvector.
  const { hasVectorSupport } = await import("@/lib/rag/vector-support");
  await hasVectorSupport(await db());
}

/**
 * Retries the start-up steps while the database is down (after 1 s, 2 s, 4 s, 8 s, then every 10
 * s), one log line per attempt, until they pass ("database ready") or `boundMs` has passed since
 * start: then the process exits 1, for its supervisor to restart it (a server that never reached its
 * database should not look alive forever).
 */
async function retryOpenDatabase(started: number, boundMs: number, exit: (code: number) => never): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const wait = Math.min(10_000, 1_000 * 2 ** (attempt - 1));
    if (Date.now() - started + wait > boundMs) {
      log.error("database still unavailable after the start-up bound; exiting for a restart", {
        attempts: attempt - 1,
        seconds: Math.round((Date.now() - started) / 1000),
      });
      exit(1);
      return;
    }
    await new Promise((r) => setTimeout(r, wait).unref());
    try {
      await openDatabase();
      log.info("database ready", { afterStartupRetries: attempt, ms: Date.now() - started });
      return;
    } catch (error) {
      log.warn("database still unavailable at start-up", { attempt, error: (error as Error).message });
    }
  }
}

/** How often each server pays the top-ups charges claimed (a lease per top-up keeps instances apart). */
const AUTO_RECHARGE_MS = 3_000;

function payAutoRechargesEvery(ms: number): void {
  let running = false;
  setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const { runDueAutoRecharges } = await import("@/lib/billing/auto-recharge/run-auto-recharges");
      await runDueAutoRecharges();
    } catch (error) {
      log.error("auto-recharge run failed", { error: (error as Error).message });
    } finally {
      running = false;
    }
  }, ms).unref();
}

/** How often each server sends due outbound webhooks and alert emails (a lease per endpoint keeps instances apart). */
const OUTBOUND_DELIVERY_MS = 10_000;

function deliverOutboundEvery(ms: number): void {
  setInterval(async () => {
    try {
      const { deliverSoon } = await import("@/lib/outbound/deliver-outbound");
      deliverSoon();
    } catch (error) {
      log.error("outbound delivery failed", { error: (error as Error).message });
    }
  }, ms).unref();
}

/** How often each server refunds charges a stopped process left reserved (lib/credits/refund-stale-reservations.ts). */
const RESERVATION_SWEEP_MS = 5 * 60_000;

function refundStaleReservationsEvery(ms: number): void {
  const sweep = async () => {
    try {
      const { refundStaleReservations, replayJournaledSettlements } = await import("@/lib/credits");
      // First what a stopped server here kept through an outage: delivered answers are never refunded.
      await replayJournaledSettlements();
      await refundStaleReservations();
    } catch (error) {
      log.error("refunding stale reservations failed", { error: (error as Error).message });
    }
  };
  void sweep();
  setInterval(() => void sweep(), ms).unref();
}

/**
 * The pricing in force in one line; in flat mode the largest call each flat price accepts per model
 * at debug (the operator console's AI routes page and GET /v1/models show the same).
 */
function logAiPricing(limits: import("@/lib/ai/check-ai-config").FlatLimit[]): void {
  const e = env();
  log.info("AI pricing", { mode: e.AI_PRICING_MODE, markup: e.AI_MARKUP, flatMargin: e.AI_FLAT_MARGIN, flatLimits: limits.length });
  for (const l of limits) {
    const what =
      l.maxInputTokens !== undefined
        ? `up to ${l.maxInputTokens.toLocaleString("en-US")} input ${l.inputUnit === "bytes" ? "bytes" : "tokens"}${l.maxOutputTokens !== undefined ? ` (no output) or ${l.maxOutputTokens.toLocaleString("en-US")} output tokens (a short prompt)` : ""}`
        : l.largestImage !== undefined
          ? `images up to ${l.largestImage}`
          : `recordings up to ${l.maxMinutes} minutes`;
    log.debug(
      `flat price limit: ${l.operation} on ${l.model} (${l.credits} credits = $${l.budgetUsd.toFixed(4)} of usage) accepts ${what}`,
      { ...l },
    );
  }
}

/** Uploads a killed process left unfinished (lib/storage/sweep-abandoned-uploads.ts). */
async function sweepUploadsInBackground(): Promise<void> {
  try {
    const { sweepAbandonedUploads } = await import("@/lib/storage");
    await sweepAbandonedUploads({ atStartup: true });
  } catch (error) {
    log.error("sweeping abandoned uploads failed", { error: (error as Error).message });
  }
}

async function indexKnowledgeInBackground(): Promise<void> {
  const started = Date.now();
  try {
    const rag = await import("@/lib/rag/index-knowledge");
    const result = await rag.indexKnowledge();
    log.info("knowledge indexed", { ms: Date.now() - started, result: summarize(result) });
  } catch (error) {
    log.error("knowledge indexing failed", { error: (error as Error).message });
  }
}

function summarize(result: unknown): unknown {
  if (result && typeof result === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(result)) if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") out[k] = v;
    return out;
  }
  return undefined;
}
