/**
 * npm run db:migrate — applies prisma/migrations to DATABASE_URL (PostgreSQL) with the runner of
 * lib/db/migrate.ts and prints what it applied. The container image ships it bundled as
 * `node scripts/db-migrate.mjs` (scripts/standalone-prepare.mjs builds it).
 *
 * A database that does not exist yet is created first when the role may (else the error says how).
 *
 * Without DATABASE_URL it migrates the embedded database directory ($PGLITE_DATA_DIR, else
 * $DATA_DIR/db; stop the dev server first, only one process may open it) — but only on a developer's
 * machine or with `--embedded`: in a build or deploy environment (production, CI, Vercel) an unset
 * DATABASE_URL is a mistake, and migrating a local directory instead would report success while the
 * real database stays behind.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { EnvError, parseEnv } from "@/lib/config/env";
import { applyMigrations, readMigrations, type SqlRunner } from "@/lib/db/migrate";

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/**
 * Creates the database DATABASE_URL names when it does not exist yet (PostgreSQL's error 3D000),
 * connected to the server's `postgres` database with the same role; when the role may not create
 * databases, says what to run instead.
 */
async function createDatabase(url: string): Promise<void> {
  const { default: pg } = await import("pg");
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ""));
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    console.log(`Created database "${name}" (it did not exist).`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "42P04") return; // created meanwhile by someone else
    const why =
      code === "42501" ? `role "${decodeURIComponent(target.username) || "(default)"}" may not create databases` : (error as Error).message;
    throw new Error(
      `database "${name}" does not exist, and it could not be created (${why}). Create it as a role that may ` +
        `(createdb -h ${target.hostname} -p ${target.port || 5432} -U postgres ${name}, or CREATE DATABASE "${name}" OWNER <your role>;), then run npm run db:migrate again.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function postgresRunner(url: string): Promise<{ runner: SqlRunner; close: () => Promise<void> }> {
  const { default: pg } = await import("pg");
  let client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    if ((error as { code?: string }).code !== "3D000") throw error;
    await client.end().catch(() => undefined);
    await createDatabase(url);
    client = new pg.Client({ connectionString: url });
    await client.connect();
  }
  return {
    runner: {
      exec: async (sql) => {
        await client.query(sql);
      },
      query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    },
    close: () => client.end(),
  };
}

async function pgliteRunner(dir: string): Promise<{ runner: SqlRunner; close: () => Promise<void> }> {
  const [{ PGlite }, { vector }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite-pgvector")]);
  const inMemory = dir.startsWith("memory://");
  if (!inMemory) mkdirSync(path.resolve(dir), { recursive: true });
  const pg = await PGlite.create(inMemory ? dir : path.resolve(dir), { extensions: { vector } });
  return {
    runner: {
      exec: async (sql) => {
        await pg.exec(sql);
      },
      query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params as never[])).rows,
    },
    close: () => pg.close(),
  };
}

async function main(): Promise<number> {
  let e;
  try {
    // Valid values are required; the server's own requirements (secrets) are not the migration's.
    e = parseEnv(process.env, { requirements: false });
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  const embeddedOnPurpose = process.argv.includes("--embedded");
  const deployEnvironment = e.isProduction || process.env.CI === "true" || Boolean(process.env.VERCEL);
  if (!e.DATABASE_URL && deployEnvironment && !embeddedOnPurpose) {
    console.error(
      "DATABASE_URL is not set: refusing to migrate the embedded database in a build or production environment" +
        ` (${e.isProduction ? "production" : process.env.VERCEL ? "VERCEL" : "CI=true"}).\n` +
        "Set DATABASE_URL to the PostgreSQL database to migrate, or pass --embedded to migrate the embedded database on purpose.",
    );
    return 1;
  }
  const total = readMigrations().length;
  const target = e.DATABASE_URL
    ? { label: `PostgreSQL ${redact(e.DATABASE_URL)}`, open: () => postgresRunner(e.DATABASE_URL as string) }
    : (() => {
        const dir = e.PGLITE_DATA_DIR ?? path.join(e.dataDir, "db");
        return { label: `embedded database ${dir}`, open: () => pgliteRunner(dir) };
      })();
  console.log(`Migrating ${target.label} (${total} migration${total === 1 ? "" : "s"} in prisma/migrations)`);
  const { runner, close } = await target.open();
  try {
    const result = await applyMigrations(runner, {
      onApplied: (name, ms) => console.log(`  applied ${name} (${ms} ms)`),
    });
    if (result.applied.length === 0) console.log(`Up to date: all ${result.alreadyApplied} migrations were already applied.`);
    else console.log(`Applied ${result.applied.length} migration(s); ${result.alreadyApplied} were already applied.`);
    return 0;
  } catch (error) {
    console.error(`Migration failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Migration failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
