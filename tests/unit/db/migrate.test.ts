import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { applyMigrations, readMigrations, type SqlRunner } from "@/lib/db/migrate";

let open: PGlite[] = [];
afterEach(async () => {
  await Promise.all(open.map((p) => p.close()));
  open = [];
});

async function database(): Promise<{ pg: PGlite; runner: SqlRunner }> {
  const pg = await PGlite.create("memory://");
  open.push(pg);
  return {
    pg,
    runner: {
      exec: async (sql) => {
        await pg.exec(sql);
      },
      query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params as never[])).rows,
    },
  };
}

function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "migrations-"));
  for (const [name, sql] of Object.entries(files)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, "migration.sql"), sql);
  }
  writeFileSync(path.join(dir, "migration_lock.toml"), 'provider = "postgresql"\n');
  return dir;
}

describe("migration runner", () => {
  it("applies migrations in name order once, recording Prisma-compatible _prisma_migrations rows", async () => {
    const { pg, runner } = await database();
    const sqlA = 'CREATE TABLE "a" ("id" TEXT PRIMARY KEY);';
    const dir = migrationsDir({ "20260101000001_b": 'ALTER TABLE "a" ADD COLUMN "x" INTEGER;', "20260101000000_a": sqlA });
    const applied: string[] = [];
    expect(await applyMigrations(runner, { dir, onApplied: (name) => applied.push(name) })).toEqual({
      applied: ["20260101000000_a", "20260101000001_b"],
      alreadyApplied: 0,
    });
    expect(applied).toEqual(["20260101000000_a", "20260101000001_b"]);
    const rows = (
      await pg.query<{
        migration_name: string;
        checksum: string;
        finished_at: Date;
        applied_steps_count: number;
        rolled_back_at: Date | null;
      }>("SELECT * FROM _prisma_migrations ORDER BY migration_name")
    ).rows;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ migration_name: "20260101000000_a", applied_steps_count: 1, rolled_back_at: null });
    expect(rows[0].checksum).toBe(createHash("sha256").update(sqlA).digest("hex"));
    expect(rows[0].finished_at).toBeInstanceOf(Date);
    expect(await applyMigrations(runner, { dir })).toEqual({ applied: [], alreadyApplied: 2 });
  });

  it("refuses a migration edited after it was applied", async () => {
    const { runner } = await database();
    const dir = migrationsDir({ "1_a": "CREATE TABLE a (id text);" });
    await applyMigrations(runner, { dir });
    writeFileSync(path.join(dir, "1_a", "migration.sql"), "CREATE TABLE a (id text, extra int);");
    await expect(applyMigrations(runner, { dir })).rejects.toThrow("Migration 1_a was modified after it was applied (checksum mismatch).");
  });

  it("rolls a failing migration back completely and names it; the next run retries it", async () => {
    const { pg, runner } = await database();
    const dir = migrationsDir({ "1_ok": "CREATE TABLE ok (id text);", "2_bad": "CREATE TABLE half (id text); SELECT no_such_function();" });
    await expect(applyMigrations(runner, { dir })).rejects.toThrow(/^Migration 2_bad failed: /);
    const tables = (await pg.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
      (r) => r.t,
    );
    expect(tables).toEqual(["_prisma_migrations", "ok"]);
    writeFileSync(path.join(dir, "2_bad", "migration.sql"), "CREATE TABLE half (id text);");
    expect((await applyMigrations(runner, { dir })).applied).toEqual(["2_bad"]);
  });

  it("reads the repository's migrations (init first)", () => {
    const names = readMigrations().map((m) => m.name);
    expect(names[0]).toBe("20261122000000_init");
    expect(names).toEqual([...names].sort());
  });
});
