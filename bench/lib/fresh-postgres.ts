import { randomBytes } from "node:crypto";
import pg from "pg";
import { applyMigrations } from "@/lib/db/migrate";

/**
 * A fresh database on the TEST_DATABASE_URL server, migrated unless `migrate: false` (a bench that
 * migrates through its own pool); drop() removes it, whatever is still connected.
 */
export async function freshPostgres(
  admin: string,
  prefix = "bench",
  options: { migrate?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  if (options.migrate !== false) {
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await applyMigrations({
        exec: async (sql) => {
          await client.query(sql);
        },
        query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
      });
    } finally {
      await client.end();
    }
  }
  return {
    url: url.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}
