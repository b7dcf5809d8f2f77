import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { docSnippets } from "@/tests/helpers/doc-snippets";
import { useFreshPostgres, withPgClient } from "@/tests/helpers/pg";

/** docs/DEPLOY.md's backup snippet, run as written on a migrated PostgreSQL database with data in it. */
const url = await useFreshPostgres();
const dir = mkdtempSync(path.join(tmpdir(), "doc-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/DEPLOY.md backup snippet", () => {
  it("dumps the database and restores it: the rows and the migration history come back", async () => {
    const snippet = docSnippets().find((s) => s.file === "docs/DEPLOY.md" && s.attrs.title === "backup");
    expect(snippet, "DEPLOY.md's backup block").toBeTruthy();
    const prisma = await db();
    const user = await prisma.user.create({ data: { email: `backup-${Date.now()}@example.com` } });
    const migrations = await withPgClient(url, async (c) =>
      Number((await c.query("SELECT COUNT(*) AS n FROM _prisma_migrations")).rows[0].n),
    );
    // The dump is taken with the user in it; the restore (--clean) replaces what is there then.
    const run = spawnSync("bash", ["-c", `set -euo pipefail\n${snippet!.code}`], {
      cwd: dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, DATABASE_URL: url },
    });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    expect(readdirSync(dir).some((f) => /^backup-\d{4}-\d{2}-\d{2}\.dump$/.test(f))).toBe(true);
    await withPgClient(url, async (c) => {
      expect((await c.query("SELECT email FROM users WHERE id = $1", [user.id])).rows).toEqual([{ email: user.email }]);
      expect(Number((await c.query("SELECT COUNT(*) AS n FROM _prisma_migrations")).rows[0].n)).toBe(migrations);
    });
  });
});
