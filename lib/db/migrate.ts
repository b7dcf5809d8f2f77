import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Applies prisma/migrations/<name>/migration.sql in order and records each in `_prisma_migrations`
 * exactly as `prisma migrate deploy` does (sha256 checksum, timestamps, applied_steps_count), so a
 * database migrated here is also valid for Prisma's own tooling. Prisma's schema engine cannot run on
 * our machines, hence this runner. Then it applies every database function's one definition,
 * prisma/functions/<name>.sql (CREATE OR REPLACE, on each run: a changed file is the new definition);
 * a migration that needs a function at its point includes its file with psql's `\i <path>` line.
 */
export interface SqlRunner {
  /** Runs a script that may hold several statements, without parameters. */
  exec(sql: string): Promise<void>;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsDir(): string {
  return path.join(process.cwd(), "prisma", "migrations");
}

/** The database functions' definitions, one file each (shipped like the migrations). */
export function functionsDir(migrations = migrationsDir()): string {
  return path.join(/*turbopackIgnore: true*/ path.dirname(migrations), "functions");
}

/** Every function file, in name order: [name, SQL]. */
export function readFunctionFiles(dir = functionsDir()): Array<{ name: string; sql: string }> {
  if (!existsSync(/*turbopackIgnore: true*/ dir)) return [];
  return readdirSync(/*turbopackIgnore: true*/ dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => ({
      name: f.slice(0, -4),
      sql: readFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, f), "utf8"),
    }));
}

/** A migration's SQL with its `\i prisma/functions/<name>.sql` lines replaced by those files. */
function withIncludes(sql: string, migrations: string): string {
  return sql.replace(/^\\i\s+prisma\/functions\/([\w-]+\.sql)\s*$/gm, (_line, file: string) =>
    readFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ functionsDir(migrations), file), "utf8"),
  );
}

/** Reads the migrations (shipped with the server through next.config.ts outputFileTracingIncludes). */
export function readMigrations(dir = migrationsDir()): Migration[] {
  if (!existsSync(/*turbopackIgnore: true*/ dir)) throw new Error(`Migrations folder not found: ${dir}`);
  return readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(/*turbopackIgnore: true*/ path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(/*turbopackIgnore: true*/ path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Prisma's own advisory-lock key, so our runner and `prisma migrate deploy` never run at once. */
const LOCK_KEY = 72707369;

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

export async function applyMigrations(
  runner: SqlRunner,
  options: { dir?: string; onApplied?: (name: string, ms: number) => void } = {},
): Promise<MigrateResult> {
  const dir = options.dir ?? migrationsDir();
  const migrations = readMigrations(dir);
  await runner.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
  try {
    await runner.exec(CREATE_TABLE);
    const rows = await runner.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.filter((r) => r.finished_at).map((r) => [r.migration_name, r.checksum]));
    const failed = rows.filter((r) => !r.finished_at).map((r) => r.migration_name);
    if (failed.length > 0) {
      throw new Error(`Migration(s) started but not finished: ${failed.join(", ")}. Resolve them before migrating again.`);
    }
    const applied: string[] = [];
    for (const migration of migrations) {
      const checksum = done.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was modified after it was applied (checksum mismatch).`);
        }
        continue;
      }
      const started = Date.now();
      const id = randomUUID();
      await runner.exec("BEGIN");
      try {
        await runner.exec(withIncludes(migration.sql, dir));
        await runner.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, NULL, $4, 1)`,
          [id, migration.checksum, migration.name, new Date(started)],
        );
        await runner.exec("COMMIT");
      } catch (error) {
        await runner.exec("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.name);
      options.onApplied?.(migration.name, Date.now() - started);
    }
    await applyFunctions(runner, functionsDir(dir));
    await ensureVectorSearch(runner, migrations);
    return { applied, alreadyApplied: migrations.length - applied.length };
  } finally {
    await runner.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]);
  }
}

/** The migration that sets up pgvector's table where the extension exists (idempotent by itself). */
const VECTOR_MIGRATION = "20261122000100_rag_vector";

/**
 * pgvector installed after the database was migrated (Debian's PostgreSQL has no package for it; see
 * docs/DEPLOY.md "PostgreSQL and Redis on your machine"): the vector migration found no extension then,
 * so its table does not exist. Every run re-applies that migration's idempotent SQL while the extension
 * is available and the table is missing, so `npm run db:migrate` after the install turns vector search on.
 */
async function ensureVectorSearch(runner: SqlRunner, migrations: Migration[]): Promise<void> {
  const [state] = await runner.query<{ available: boolean; table: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available, to_regclass('rag_chunk_embeddings') IS NOT NULL AS \"table\"",
  );
  if (!state?.available || state.table) return;
  const migration = migrations.find((m) => m.name === VECTOR_MIGRATION);
  if (migration) await runner.exec(migration.sql);
}

/** Every database function's file, in one transaction (each is CREATE OR REPLACE: a rerun changes nothing). */
async function applyFunctions(runner: SqlRunner, dir: string): Promise<void> {
  const files = readFunctionFiles(dir);
  if (files.length === 0) return;
  await runner.exec("BEGIN");
  let current = "";
  try {
    for (const file of files) {
      current = file.name;
      await runner.exec(file.sql);
    }
    await runner.exec("COMMIT");
  } catch (error) {
    await runner.exec("ROLLBACK");
    throw new Error(`Database function ${current} (prisma/functions/${current}.sql) failed: ${(error as Error).message}`, { cause: error });
  }
}
