import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/** The PostgreSQL server's process (its backends are its children), when it runs on this machine. */
export async function postmasterPid(databaseUrl: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const dir = (await client.query<{ data_directory: string }>("SHOW data_directory")).rows[0].data_directory;
    const file = path.join(dir, "postmaster.pid");
    return existsSync(file) ? Number(readFileSync(file, "utf8").split("\n")[0]) : undefined;
  } catch {
    return undefined; // not allowed to read the setting: PostgreSQL's CPU is left out
  } finally {
    await client.end();
  }
}

export interface StatementCost {
  /** The statement's text as pg_stat_statements normalised it, whitespace collapsed. */
  query: string;
  /** Sent by a client (true) or run inside a database function or trigger (false). */
  topLevel: boolean;
  calls: number;
  /** Execution time inside PostgreSQL (wall time: lock waits and a preempted backend count too). */
  totalMs: number;
}

/**
 * What each statement of a load cost inside PostgreSQL, from pg_stat_statements: the database
 * functions' and triggers' own statements too (`pg_stat_statements.track = all` for the database).
 * `{ unavailable }`, with the reason, where the module is not loaded (it needs
 * `shared_preload_libraries`, so a server restart) or the role may not set it: the benches then print
 * the reason and go on.
 */
export async function statementCosts(
  databaseUrl: string,
): Promise<{ reset: () => Promise<void>; read: () => Promise<StatementCost[]>; end: () => Promise<void> } | { unavailable: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await client.query("SELECT pg_stat_statements_reset()");
    // The functions' own statements too, for this database's new connections (call this before the
    // server connects).
    const db = (await client.query<{ db: string }>("SELECT current_database() AS db")).rows[0].db;
    await client.query(`ALTER DATABASE "${db}" SET pg_stat_statements.track = 'all'`);
  } catch (error) {
    await client.end();
    return {
      unavailable: `pg_stat_statements is not loaded (${(error as Error).message}); start PostgreSQL with shared_preload_libraries = 'pg_stat_statements' and pg_stat_statements.track = all for the breakdown`,
    };
  }
  return {
    reset: async () => void (await client.query("SELECT pg_stat_statements_reset()")),
    read: async () =>
      (
        await client.query<{ query: string; toplevel: boolean; calls: string; total: number }>(
          `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, toplevel, calls, total_exec_time AS total
             FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query NOT LIKE '%pg_stat_statements%'
            ORDER BY total_exec_time DESC`,
        )
      ).rows.map((r) => ({ query: r.query, topLevel: r.toplevel, calls: Number(r.calls), totalMs: Number(r.total) })),
    end: () => client.end(),
  };
}
