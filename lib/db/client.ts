import { mkdirSync } from "node:fs";
import {
  assertDatabaseAvailable,
  isDatabaseUnreachable,
  markDatabaseConnectionError,
  recordDatabaseFailure,
  resetDatabaseCircuit,
  setDatabaseProbe,
} from "./outage";
import path from "node:path";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { watchDbPool } from "@/lib/metrics";
import { withSpan } from "@/lib/tracing";
import { maintainEmbeddedDatabase } from "./embedded-maintenance";
import { pglitePrepared } from "./pglite-prepared";
import { applyMigrations, type SqlRunner } from "./migrate";
import { processState } from "@/lib/process-state";

/**
 * One Prisma client per process: PGlite (embedded, migrated on open) when DATABASE_URL is unset,
 * PostgreSQL through @prisma/adapter-pg when it is set. Kept as process state (lib/process-state.ts) so `next dev` hot reloads
 * never open the PGlite data directory twice (it has no cross-process lock).
 */
export type Db = PrismaClient;
export type DbKind = "pglite" | "postgres";

/** The raw driver under Prisma: multi-statement scripts, and named prepared statements for hot paths. */
export interface DbRunner extends SqlRunner {
  /** Runs a parameterized statement the driver prepares once per connection under `name`. */
  queryPrepared<T>(name: string, sql: string, params: unknown[]): Promise<T[]>;
}

interface Handle {
  prisma: PrismaClient;
  kind: DbKind;
  runner: DbRunner;
  close: () => Promise<void>;
}

const state = processState("db", () => ({ handle: undefined as Promise<Handle> | undefined }));

export function pgliteDataDir(): string {
  const e = env();
  return e.PGLITE_DATA_DIR ?? path.join(/*turbopackIgnore: true*/ e.dataDir, "db");
}

async function openPglite(): Promise<Handle> {
  const [{ PGlite, parse, protocol }, { vector }, { PrismaPGlite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite-pgvector"),
    import("pglite-prisma-adapter"),
  ]);
  // The data directory is chosen at run time: keep it out of the build's file tracing.
  const dir = pgliteDataDir();
  const inMemory = dir.startsWith("memory://");
  const resolved = inMemory ? dir : path.resolve(/*turbopackIgnore: true*/ dir);
  if (!inMemory) mkdirSync(/*turbopackIgnore: true*/ resolved, { recursive: true });
  const started = Date.now();
  const pg = await PGlite.create(resolved, { extensions: { vector } });
  const prepared = pglitePrepared(pg, { parse, protocol });
  const runner: DbRunner = {
    exec: async (sql) => {
      await pg.exec(sql);
    },
    query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params as never[])).rows,
    // Parsed and described once under its name, then one call into PostgreSQL's main loop per use.
    queryPrepared: <T>(name: string, sql: string, params: unknown[]) =>
      withSpan(`db.query ${name}`, { "db.system": "postgresql", "db.operation.name": name }, () => prepared<T>(name, sql, params)),
  };
  const result = await applyMigrations(runner, {
    onApplied: (name, ms) => log.info("migration applied", { migration: name, ms }),
  });
  log.info("embedded database ready", {
    dataDir: resolved,
    applied: result.applied.length,
    ms: Date.now() - started,
  });
  const prisma = new PrismaClient({
    adapter: new PrismaPGlite(pg),
    // PGlite serializes every query through one connection: queued transactions must wait, not fail.
    transactionOptions: { maxWait: 10_000, timeout: 10_000 },
  });
  const stopMaintenance = maintainEmbeddedDatabase(runner.exec);
  return {
    prisma,
    kind: "pglite",
    runner,
    close: async () => {
      await stopMaintenance();
      await prisma.$disconnect();
      await pg.close();
    },
  };
}

async function openPostgres(url: string): Promise<Handle> {
  const [{ PrismaPg }, pgModule] = await Promise.all([import("@prisma/adapter-pg"), import("pg")]);
  const pool = new pgModule.default.Pool({ connectionString: url, max: env().DATABASE_POOL_MAX });
  const prepared = env().DATABASE_PREPARED_STATEMENTS && new URL(url).searchParams.get("pgbouncer") !== "true";
  // An idle connection the server closed (a restart, a failover): the pool replaces it; the breaker counts it.
  pool.on("error", (error) => {
    if (isDatabaseUnreachable(error)) recordDatabaseFailure(error);
    else log.error("postgres pool error", { error });
  });
  // A connection's socket failing mid-statement: its client says so first (lib/db/outage.ts), then
  // fails its statements with the same error, which is then counted as the database's wherever it surfaces.
  pool.on("connect", (client) => client.on("error", markDatabaseConnectionError));
  setDatabaseProbe(async () => {
    await pool.query("SELECT 1");
  });
  watchDbPool(() => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
  const runner: DbRunner = {
    exec: async (sql) => {
      await pool.query(sql);
    },
    query: async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows as T[],
    // A named statement is parsed once per connection; a transaction-pooling proxy hands each
    // transaction another server connection, where the name does not exist: unnamed there.
    queryPrepared: <T>(name: string, sql: string, params: unknown[]) =>
      withSpan(
        `db.query ${name}`,
        { "db.system": "postgresql", "db.operation.name": name },
        async () => (await pool.query(prepared ? { name, text: sql, values: params } : { text: sql, values: params })).rows as T[],
      ),
  };
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool),
    transactionOptions: { maxWait: 5_000, timeout: 10_000 },
  });
  return {
    prisma,
    kind: "postgres",
    runner,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

function open(): Promise<Handle> {
  const url = env().DATABASE_URL;
  return url ? openPostgres(url) : openPglite();
}

function handle(): Promise<Handle> {
  if (!state.handle) {
    state.handle = open().catch((error) => {
      state.handle = undefined;
      throw error;
    });
  }
  return state.handle;
}

/** The process's Prisma client (opens and, on the embedded database, migrates on first use). */
export async function db(): Promise<Db> {
  assertDatabaseAvailable();
  return (await handle()).prisma;
}

export async function dbKind(): Promise<DbKind> {
  return (await handle()).kind;
}

export async function dbRunner(): Promise<DbRunner> {
  assertDatabaseAvailable();
  return (await handle()).runner;
}

/** Closes the client (tests, scripts). The next db() call opens a new one. */
export async function closeDb(): Promise<void> {
  const current = state.handle;
  state.handle = undefined;
  resetDatabaseCircuit();
  if (current) await (await current).close();
}
