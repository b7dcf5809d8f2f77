import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "@/lib/server/start-server";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";

afterAll(closeDb);

describe("server start-up (instrumentation)", () => {
  it("opens and migrates the database, then indexes the knowledge in the background without blocking", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "knowledge-"));
    writeFileSync(path.join(dir, "plans.md"), "# Plans\n\nThe pro plan includes five thousand credits every month.\n");
    const restore = setEnv({ RAG_INDEX_ON_START: "true", RAG_KNOWLEDGE_DIR: dir });
    try {
      const exit = () => {
        throw new Error("must not exit with a valid environment");
      };
      await startServer({ exit: exit as never });
      const prisma = await db();
      const migrations = await prisma.$queryRaw<
        { n: bigint }[]
      >`SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL`;
      expect(Number(migrations[0].n)).toBeGreaterThanOrEqual(2);
      // Indexing was started, not awaited: wait for its document to appear.
      let documents = 0;
      for (let i = 0; i < 100 && documents === 0; i++) {
        documents = await prisma.ragDocument.count({ where: { source: "knowledge" } });
        if (documents === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(documents).toBe(1);
    } finally {
      restore();
    }
  });
});
