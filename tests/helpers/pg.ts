import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import { closeDb } from "@/lib/db/client";
import { applyMigrations } from "@/lib/db/migrate";

/**
 * Gives the calling test file its own migrated database on the TEST_DATABASE_URL server and points
 * DATABASE_URL at it; dropped after the file. Call at module top level (before any db() use).
 */
export async function useFreshPostgres(): Promise<string> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error("TEST_DATABASE_URL is not set");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE ${name}`);
  await adminClient.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await applyMigrations({
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
  });
  await client.end();
  process.env.DATABASE_URL = url.toString();
  delete process.env.PGLITE_DATA_DIR;
  afterAll(async () => {
    await closeDb();
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  return url.toString();
}
