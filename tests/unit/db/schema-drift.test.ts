import { readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, type SqlRunner } from "@/lib/db/migrate";
import { diffShapes, shapeFromDatabase, shapeFromPrismaSchema, type SchemaShape } from "./schema-model";

/**
 * schema.prisma and prisma/migrations must describe the same database: tables, columns, types,
 * nullability, defaults, indexes, uniques and foreign keys. The migrations are applied to a fresh
 * PGlite and its catalog is compared with schema.prisma's DMMF. The last cases prove the comparison
 * catches drift on either side.
 */
const schemaText = readFileSync(path.join(process.cwd(), "prisma", "schema.prisma"), "utf8");

let pg: PGlite;
let runner: SqlRunner;
let migrated: SchemaShape;
let expected: SchemaShape;

beforeAll(async () => {
  pg = await PGlite.create("memory://", { extensions: { vector } });
  runner = {
    exec: async (sql) => {
      await pg.exec(sql);
    },
    query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params as never[])).rows,
  };
  await applyMigrations(runner);
  migrated = await shapeFromDatabase(runner);
  expected = await shapeFromPrismaSchema(schemaText);
});

afterAll(async () => {
  await pg?.close();
});

describe("schema.prisma vs migrations", () => {
  it("describe the same tables, columns, types, nullability, defaults, indexes, uniques and foreign keys", () => {
    expect(diffShapes(expected, migrated)).toEqual([]);
  });

  it("really compares something (every model is a table with columns, indexes and keys)", () => {
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(17);
    expect(expected.users.columns.tier).toEqual({ type: "text", nullable: false, default: "'free'" });
    expect(migrated.users.columns.created_at).toEqual({
      type: "timestamp(3) with time zone",
      nullable: false,
      default: "CURRENT_TIMESTAMP",
    });
    expect(migrated.credit_transactions.indexes.credit_transactions_user_id_created_at_idx.columns).toEqual(["user_id", "created_at DESC"]);
    expect(migrated.rag_chunks.indexes.rag_chunks_search_idx.method).toBe("gin");
    expect(migrated.rag_chunks.columns.search.type).toBe("tsvector");
    expect(migrated.bonus_purchases.columns.price.type).toBe("numeric(10,2)");
    expect(migrated.credit_transactions.foreignKeys.credit_transactions_bonus_purchase_id_fkey).toEqual({
      columns: ["bonus_purchase_id"],
      references: "bonus_purchases",
      referencedColumns: ["id"],
      onDelete: "SET NULL",
      onUpdate: "CASCADE",
    });
  });

  it("excludes only rag_chunk_embeddings (raw SQL, documented in its migration) and _prisma_migrations", () => {
    expect(migrated.rag_chunk_embeddings).toBeDefined();
    expect(expected.rag_chunk_embeddings).toBeUndefined();
    expect(diffShapes(expected, migrated, [])).toEqual([
      "table _prisma_migrations: in the migrations but not in schema.prisma",
      "table rag_chunk_embeddings: in the migrations but not in schema.prisma",
    ]);
  });
});

describe("the drift check fails when one side changes", () => {
  it("catches an altered schema.prisma: default, nullability, type, new column, dropped index, relation action", async () => {
    const altered = schemaText
      .replace(`tier                String    @default("free")`, `tier                String    @default("basic")`)
      .replace(`name                String?\n`, `name                String\n  nickname            String?\n`)
      .replace(`  amount          Int\n`, `  amount          BigInt\n`)
      .replace(`  @@index([expiresAt])\n  @@map("bonus_purchases")`, `  @@map("bonus_purchases")`)
      .replace(
        `bonusPurchase BonusPurchase?   @relation(fields: [bonusPurchaseId], references: [id], onDelete: SetNull)`,
        `bonusPurchase BonusPurchase?   @relation(fields: [bonusPurchaseId], references: [id], onDelete: Cascade)`,
      );
    expect(altered).not.toBe(schemaText);
    const problems = diffShapes(await shapeFromPrismaSchema(altered), migrated);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^users: column tier differs/),
        expect.stringMatching(/^users: column name differs/),
        "users: column nickname is in schema.prisma but not in the migrations",
        expect.stringMatching(/^credit_transactions: column amount differs/),
        "bonus_purchases: index bonus_purchases_expires_at_idx is in the migrations but not in schema.prisma",
        expect.stringMatching(/^credit_transactions: foreign key credit_transactions_bonus_purchase_id_fkey differs/),
      ]),
    );
    expect(problems).toHaveLength(6);
  });

  it("catches an altered database: a changed column, a dropped unique, an extra table", async () => {
    await pg.exec(`
      ALTER TABLE users ALTER COLUMN name SET NOT NULL;
      ALTER TABLE files ALTER COLUMN size TYPE bigint;
      DROP INDEX files_user_id_sha256_key;
      CREATE TABLE stray (id text PRIMARY KEY);
    `);
    const problems = diffShapes(expected, await shapeFromDatabase(runner));
    expect(problems).toEqual([
      'files: column size differs: schema.prisma {"type":"integer","nullable":false,"default":null} vs migrations {"type":"bigint","nullable":false,"default":null}',
      "files: index files_user_id_sha256_key is in schema.prisma but not in the migrations",
      "table stray: in the migrations but not in schema.prisma",
      'users: column name differs: schema.prisma {"type":"text","nullable":true,"default":null} vs migrations {"type":"text","nullable":false,"default":null}',
    ]);
  });
});
