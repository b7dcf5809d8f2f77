import { PGlite, parse, protocol } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pglitePrepared } from "@/lib/db/pglite-prepared";

/**
 * The embedded database's named prepared statements (lib/db/pglite-prepared.ts) against PGlite's own
 * `query` on a real PGlite: the same rows for every type the hot statements read and write, the same
 * errors, the database usable after one, and a transaction in progress never interleaved.
 */
let pg: PGlite;
let prepared: ReturnType<typeof pglitePrepared>;

beforeAll(async () => {
  pg = await PGlite.create("memory://");
  prepared = pglitePrepared(pg, { parse, protocol });
  await pg.exec(`
    CREATE TABLE items (id text PRIMARY KEY, n int NOT NULL, big bigint, amount numeric(12,2), at timestamptz, meta jsonb, tags text[], ok boolean);
    INSERT INTO items VALUES ('a', 1, 9007199254740993, 12.50, '2026-12-03T05:00:00Z', '{"k":[1,"x"]}', '{x,"y z"}', true),
                             ('b', 2, NULL, NULL, NULL, NULL, NULL, NULL);`);
}, 60_000);

afterAll(async () => {
  await pg?.close();
});

const READ = "SELECT * FROM items WHERE id = ANY($1::text[]) AND n >= $2::int ORDER BY id";

describe("named prepared statements on the embedded database", () => {
  it("reads the rows PGlite's query reads, for every type, parsed once under its name", async () => {
    const expected = (await pg.query(READ, [["a", "b"], 1])).rows;
    expect(expected).toHaveLength(2);
    expect(await prepared("items_read_v1", READ, [["a", "b"], 1])).toEqual(expected);
    expect(await prepared("items_read_v1", READ, [["b"], 2])).toEqual(expected.slice(1));
    const names = (await pg.query<{ name: string }>("SELECT name FROM pg_prepared_statements")).rows.map((r) => r.name);
    expect(names).toEqual(["items_read_v1"]);
  });

  it("writes what it is given: jsonb, arrays, timestamps, booleans and nulls", async () => {
    const WRITE = `INSERT INTO items (id, n, big, amount, at, meta, tags, ok)
      VALUES ($1::text, $2::int, $3::bigint, $4::numeric, $5::timestamptz, $6::jsonb, $7::text[], $8::boolean) RETURNING *`;
    const at = new Date("2026-12-03T06:00:00.123Z");
    const [row] = await prepared<Record<string, unknown>>("items_write_v1", WRITE, [
      "c",
      3,
      "42",
      "7.25",
      at,
      JSON.stringify({ quote: 'a "b"', list: [1, 2] }),
      ["p", "q,r", 'with "quote"'],
      false,
    ]);
    expect(row).toEqual({
      id: "c",
      n: 3,
      big: 42,
      amount: "7.25",
      at,
      meta: { quote: 'a "b"', list: [1, 2] },
      tags: ["p", "q,r", 'with "quote"'],
      ok: false,
    });
    expect(row).toEqual((await pg.query("SELECT * FROM items WHERE id = 'c'")).rows[0]);
    const [empty] = await prepared<Record<string, unknown>>("items_write_v1", WRITE, ["d", 4, null, undefined, null, null, null, null]);
    expect(empty).toMatchObject({ id: "d", big: null, amount: null, at: null, meta: null, tags: null, ok: null });
  });

  it("raises PostgreSQL's error, and the next statement runs", async () => {
    const INSERT = "INSERT INTO items (id, n) VALUES ($1::text, $2::int)";
    const error = await prepared("items_insert_v1", INSERT, ["a", 1]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "23505" });
    expect(await prepared("items_insert_v1", INSERT, ["e", 5])).toEqual([]);
    expect((await prepared<{ n: number }>("items_read_v1", READ, [["e"], 0]))[0].n).toBe(5);
    await expect(prepared("items_bad_v1", "SELECT * FROM nowhere WHERE id = $1::text", ["x"])).rejects.toMatchObject({ code: "42P01" });
    expect(await prepared("items_read_v1", READ, [["a"], 0])).toHaveLength(1);
  });

  it("prepares a statement again when someone else deallocated it", async () => {
    expect(await prepared("items_read_v1", READ, [["a"], 0])).toHaveLength(1);
    await pg.exec("DEALLOCATE ALL");
    expect(await prepared("items_read_v1", READ, [["a", "b"], 0])).toHaveLength(2);
  });

  it("waits for a transaction in progress rather than running inside it", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = pg.transaction(async (t) => {
      await t.query("UPDATE items SET n = 100 WHERE id = 'b'");
      await held;
      await t.rollback();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const read = prepared<{ n: number }>("items_read_v1", READ, [["b"], 0]);
    let done = false;
    void read.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    release();
    await tx;
    expect((await read)[0].n).toBe(2);
  });
});
