import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { diffShapes, shapeFromDatabase, shapeFromPrismaSchema } from "@/tests/unit/db/schema-model";
import { useFreshPostgres } from "@/tests/helpers/pg";

/** The drift check on a real PostgreSQL (15, without pgvector): the migrations give schema.prisma's tables there too. */
const url = await useFreshPostgres();
const client = new pg.Client({ connectionString: url });
await client.connect();
afterAll(() => client.end());

describe("schema.prisma vs migrations on PostgreSQL", () => {
  it("match exactly", async () => {
    const runner = {
      exec: async (sql: string) => {
        await client.query(sql);
      },
      query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    };
    const expected = await shapeFromPrismaSchema(readFileSync(path.join(process.cwd(), "prisma", "schema.prisma"), "utf8"));
    const actual = await shapeFromDatabase(runner);
    expect(Object.keys(actual).length).toBeGreaterThanOrEqual(Object.keys(expected).length);
    expect(diffShapes(expected, actual)).toEqual([]);
  });
});
