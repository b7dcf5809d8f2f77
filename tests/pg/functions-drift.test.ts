import { describe, expect, it } from "vitest";
import { readFunctionFiles } from "@/lib/db/migrate";
import { useFreshPostgres, withPgClient } from "@/tests/helpers/pg";

/**
 * Each database function's live definition is its file in prisma/functions, and nothing else: every
 * file is created again in a scratch schema and PostgreSQL's own rendering of it (pg_get_functiondef)
 * compared with the live function's; and the functions of the schema (extensions' aside) are exactly
 * the files. A definition changed in the database by hand, or a function no file holds, fails here.
 */
const url = await useFreshPostgres();
const files = readFunctionFiles();

describe("prisma/functions and the live database", () => {
  it("holds one file per function, and the live functions are exactly those files", async () => {
    expect(files.length).toBeGreaterThanOrEqual(17);
    const live = await withPgClient(url, async (c) =>
      (
        await c.query<{ name: string }>(
          `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public'
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
            ORDER BY 1`,
        )
      ).rows.map((r) => r.name),
    );
    expect(live).toEqual(files.map((f) => f.name).sort());
  });

  it.each(files.map((f) => [f.name, f.sql] as const))("%s: the live definition is the file's", async (name, sql) => {
    await withPgClient(url, async (c) => {
      await c.query("CREATE SCHEMA IF NOT EXISTS drift_check");
      await c.query("SET search_path TO drift_check, public");
      await c.query(sql);
      const defs = await c.query<{ schema: string; def: string }>(
        `SELECT n.nspname AS schema, pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE p.proname = $1 AND n.nspname IN ('public', 'drift_check')`,
        [name],
      );
      await c.query("DROP SCHEMA drift_check CASCADE");
      const live = defs.rows.filter((r) => r.schema === "public");
      const fromFile = defs.rows.find((r) => r.schema === "drift_check");
      expect(live, `${name}: one live definition`).toHaveLength(1);
      expect(live[0].def).toBe(fromFile!.def.replaceAll("drift_check.", "public."));
    });
  });
});
