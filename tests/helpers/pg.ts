import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import { closeDb } from "@/lib/db/client";
import { applyMigrations } from "@/lib/db/migrate";

/** The TEST_DATABASE_URL server (scripts/test-services.sh start prints it), or a clear error. */
export function testDatabaseAdminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set: run scripts/test-services.sh start and export its output");
  return url;
}

/** Runs `fn` on a client connected to `url`, closed afterwards. */
export async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Gives the calling test file its own migrated database on the TEST_DATABASE_URL server and points
 * DATABASE_URL at it; dropped after the file. Call at module top level (before any db() use).
 */
export async function useFreshPostgres(): Promise<string> {
  const admin = testDatabaseAdminUrl();
  const name = `test_${randomBytes(6).toString("hex")}`;
  await withPgClient(admin, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  await withPgClient(url.toString(), (client) =>
    applyMigrations({
      exec: async (sql) => {
        await client.query(sql);
      },
      query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
    }),
  );
  process.env.DATABASE_URL = url.toString();
  delete process.env.PGLITE_DATA_DIR;
  afterAll(async () => {
    await closeDb();
    await withPgClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });
  return url.toString();
}
