import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";

/**
 * The database's reachability, as this process sees it: a circuit breaker. Requests that fail because
 * the database cannot be reached are counted; a burst of them (FAILURES_TO_OPEN within WINDOW_MS)
 * marks the database down, and until a probe reaches it again every database access fails at once
 * with `unavailable` (503, Retry-After) instead of waiting on a dead pool. The log gets one line when
 * it goes down, one every STILL_DOWN_LOG_MS while it stays down (with the count of refused requests),
 * and one when it is back, never a stack per request.
 */
export const FAILURES_TO_OPEN = 3;
export const WINDOW_MS = 5_000;
/** How long a request may be told to wait (Retry-After) and how often the database is probed while down. */
export const RETRY_AFTER_SECONDS = 2;
export const STILL_DOWN_LOG_MS = 10_000;

interface Circuit {
  down: boolean;
  since: number;
  failures: number[];
  refused: number;
  lastReport: number;
  lastError: string;
  probing: Promise<void> | null;
  probe: (() => Promise<void>) | null;
  /** Told when a probe finds the database back (kept settlements and releases go out at once). */
  whenBack: Map<string, () => void>;
}

const circuit = () =>
  processState<Circuit>("db-outage-circuit", () => ({
    down: false,
    since: 0,
    failures: [],
    refused: 0,
    lastReport: 0,
    lastError: "",
    probing: null,
    probe: null,
    whenBack: new Map(),
  }));

/** Network errors: the database's only when they name its port (an S3 or a provider call fails the same way). */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"]);
const UNREACHABLE_CODES = new Set([
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now; Prisma: can't reach, timed out, closed, pool timeout.
  "57P01",
  "57P02",
  "57P03",
  "P1001",
  "P1002",
  "P1017",
  "P2024",
]);
/** What the PostgreSQL driver and Prisma say when the server is gone (their own words: no other client says them). */
const UNREACHABLE_MESSAGES =
  /Server has closed the connection|Connection terminated|terminating connection due to administrator command|Connection ended unexpectedly|timeout exceeded when trying to connect|Can't reach database server|the database system is (starting up|shutting down|in recovery mode)|Client has encountered a connection error/;

let databasePort: { url: string | undefined; port: number | null } = { url: undefined, port: null };
function dbPort(): number | null {
  const url = process.env.DATABASE_URL;
  if (databasePort.url !== url) {
    let port: number | null = null;
    try {
      port = url ? Number(new URL(url).port || 5432) : null;
    } catch {
      port = null;
    }
    databasePort = { url, port };
  }
  return databasePort.port;
}

/**
 * Errors a pooled connection reported on its own `error` event: the socket failed under it (a reset
 * mid-statement reaches pg as a bare `read ECONNRESET` naming no port, indistinguishable by its words
 * from an S3 or provider socket's). The connection says so before the statements it fails hear it
 * (pg delivers those on the next tick), so marking them here lets every caller count them.
 */
// Process state, not a module's: the pool is opened by one bundle and its errors may surface in another's route.
const connectionErrors = processState("db-connection-errors", () => new WeakSet<object>());

/** Marks an error a database connection reported as the database's (lib/db/client.ts listens on every pooled client). */
export function markDatabaseConnectionError(error: unknown): void {
  if (error && typeof error === "object") connectionErrors.add(error);
}

/** Whether an error (or one it wraps) says the database could not be reached, as opposed to a query's own failure. */
export function isDatabaseUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth++) {
    if (typeof current === "object" && connectionErrors.has(current)) return true;
    const e = current as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown; originalCode?: unknown; port?: unknown };
    if (typeof e.code === "string" && NETWORK_CODES.has(e.code) && e.port !== undefined && Number(e.port) === dbPort()) return true;
    if (typeof e.code === "string" && (UNREACHABLE_CODES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
    if (typeof e.originalCode === "string" && (UNREACHABLE_CODES.has(e.originalCode) || e.originalCode.startsWith("08"))) return true;
    if (typeof e.kind === "string" && /ConnectionClosed|DatabaseNotReachable|SocketTimeout/.test(e.kind)) return true;
    if (typeof e.message === "string" && UNREACHABLE_MESSAGES.test(e.message)) return true;
    current = e.cause;
  }
  return false;
}

/** The answer to a request the database could not serve. */
export function databaseUnavailable(): AppError {
  return new AppError("unavailable", "The database is unavailable; retry shortly", {
    headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
    details: { source: "database" },
  });
}

/** Whether an error is the breaker's refusal (databaseUnavailable). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isAppError(error) && error.code === "unavailable" && error.details?.source === "database";
}

/** How the breaker checks the database while it is down (set by the client: a `SELECT 1`). */
export function setDatabaseProbe(probe: () => Promise<void>): void {
  circuit().probe = probe;
}

/** A failure that says the database is unreachable: counted; a burst marks it down. */
export function recordDatabaseFailure(error: unknown): void {
  const c = circuit();
  // Without a probe (the embedded database, which is never out of reach) nothing could close it again.
  if (!c.probe || !isDatabaseUnreachable(error)) return;
  const now = Date.now();
  c.lastError = error instanceof Error ? error.message : String(error);
  if (c.down) return;
  c.failures = c.failures.filter((t) => now - t < WINDOW_MS);
  c.failures.push(now);
  if (c.failures.length >= FAILURES_TO_OPEN) {
    c.down = true;
    c.since = now;
    c.lastReport = now;
    c.refused = 0;
    log.error("database unreachable: requests answer 503 until it is back", { error: c.lastError, failures: c.failures.length });
  }
}

/** Forgets the breaker's state and its probe (the client was closed; the next one sets its own). */
export function resetDatabaseCircuit(): void {
  const c = circuit();
  Object.assign(c, { down: false, since: 0, failures: [], refused: 0, lastReport: 0, lastError: "", probe: null });
}

/**
 * Runs `callback` each time a probe finds the database back (registered once per name): work kept
 * through an outage goes out at once instead of at its next backoff (up to 30 s later).
 */
export function whenDatabaseBack(name: string, callback: () => void): void {
  circuit().whenBack.set(name, callback);
}

/** Whether the breaker holds the database down now. */
export function databaseDown(): boolean {
  return circuit().down;
}

/**
 * Called before every database access: while the database is down, refuses at once (503) and probes
 * it, one probe at a time, every RETRY_AFTER_SECONDS; a probe that reaches it closes the breaker.
 */
export function assertDatabaseAvailable(): void {
  const c = circuit();
  if (!c.down) return;
  const now = Date.now();
  // One probe at a time, each after a short pause: a refused request never waits on it.
  if (!c.probing) startProbe(c);
  c.refused++;
  if (now - c.lastReport >= STILL_DOWN_LOG_MS) {
    c.lastReport = now;
    log.warn("database still unreachable", { downForMs: now - c.since, refused: c.refused, error: c.lastError });
  }
  throw databaseUnavailable();
}

function startProbe(c: Circuit): void {
  const probe = c.probe;
  if (!probe) return;
  c.probing = (async () => {
    await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_SECONDS * 500).unref?.());
    try {
      await probe();
      if (c.down) {
        log.info("database reachable again", { downForMs: Date.now() - c.since, refused: c.refused });
        c.down = false;
        c.failures = [];
        for (const [name, callback] of c.whenBack) {
          try {
            callback();
          } catch (error) {
            log.error("database-back callback failed", { name, error });
          }
        }
      }
    } catch (error) {
      c.lastError = error instanceof Error ? error.message : String(error);
    } finally {
      c.probing = null;
    }
  })();
}
