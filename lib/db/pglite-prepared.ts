import type { PGlite, parse as pgliteParse, protocol as pgliteProtocol } from "@electric-sql/pglite";

/**
 * Named prepared statements on the embedded database, for the hot paths' `queryPrepared`.
 *
 * `PGlite.query` parses, describes and plans its statement anew at every call, in six calls into
 * PostgreSQL's main loop (parse, describe, bind, describe, execute, sync). Here a statement is parsed
 * and described once under its name; each call is then one buffer (bind, describe, execute, sync)
 * handed to the main loop at once, and the statement's plan is kept as PostgreSQL keeps a named
 * statement's. Values are serialized and rows parsed by PGlite's own serializers and parsers, under the
 * same locks as `query` (a transaction in progress finishes first), so a row reads exactly as
 * `query` gives it. PGlite's module comes from the caller (lib/db/client.ts imports it only when the
 * embedded database is used).
 */

interface Prepared {
  sql: string;
  /** The type of each parameter, as PostgreSQL inferred it (the statements cast their parameters). */
  paramTypes: number[];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function pglitePrepared(
  pg: PGlite,
  { parse, protocol }: { parse: typeof pgliteParse; protocol: typeof pgliteProtocol },
): <T>(name: string, sql: string, params: unknown[]) => Promise<T[]> {
  const { serialize } = protocol;
  const statements = new Map<string, Prepared>();

  async function prepare(name: string, sql: string): Promise<Prepared> {
    // A name reused for other text (never in this code base: names carry a version) is replaced.
    const parts = statements.has(name) ? [serialize.close({ type: "S", name })] : [];
    statements.delete(name);
    parts.push(serialize.parse({ name, text: sql, types: [] }), serialize.describe({ type: "S", name }), serialize.sync());
    const { messages } = await pg.execProtocol(concat(parts), { syncToFs: false });
    const prepared = { sql, paramTypes: parse.parseDescribeStatementResults(messages) };
    statements.set(name, prepared);
    return prepared;
  }

  async function run<T>(name: string, sql: string, params: unknown[]): Promise<T[]> {
    const existing = statements.get(name);
    const statement = existing && existing.sql === sql ? existing : await prepare(name, sql);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = pg.serializers[statement.paramTypes[i]];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await pg.execProtocol(
      concat([serialize.bind({ statement: name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    // Outside a transaction (the lock above waits for one to end), as `query` does.
    await pg.syncToFs();
    return (parse.parseResults(messages, pg.parsers)[0]?.rows ?? []) as T[];
  }

  return <T>(name: string, sql: string, params: unknown[]) =>
    pg._runExclusiveTransaction(() =>
      pg._runExclusiveQuery(async () => {
        try {
          return await run<T>(name, sql, params);
        } catch (error) {
          // The statement is gone (a DEALLOCATE or DISCARD by someone else): prepared again, once.
          if ((error as { code?: string }).code !== "26000" || !statements.delete(name)) throw error;
          return await run<T>(name, sql, params);
        }
      }),
    );
}
