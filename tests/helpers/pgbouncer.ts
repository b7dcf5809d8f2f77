import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, removeDir } from "@/tests/e2e/server";
import { withPgClient } from "@/tests/helpers/pg";

export interface PgBouncer {
  /** The database through the pooler (its name is `app`). */
  url: string;
  /** Runs a command on PgBouncer's admin console (PAUSE app, RESUME app, SHOW POOLS, ...). */
  admin(command: string): Promise<unknown[]>;
  stop(): Promise<void>;
}

/**
 * PgBouncer 1.18 (Debian) in transaction mode in front of a database, on 127.0.0.1 and a free port, as
 * an unprivileged user when we are root; `postgres` may use its admin console. `settings` adds lines
 * to its [pgbouncer] section.
 */
export async function startPgBouncer(databaseUrl: string, settings: string[] = []): Promise<PgBouncer> {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-pgbouncer-"));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const db = new URL(databaseUrl);
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `app = host=${db.hostname} port=${db.port || 5432} dbname=${db.pathname.slice(1)} user=${decodeURIComponent(db.username) || "postgres"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "auth_type = any",
      "admin_users = postgres",
      "pool_mode = transaction",
      "max_client_conn = 1000",
      "default_pool_size = 20",
      "unix_socket_dir =",
      `logfile = ${dir}/pgbouncer.log`,
      "ignore_startup_parameters = extra_float_digits,options",
      ...settings,
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn("/usr/sbin/pgbouncer", [...(asRoot ? ["-u", "nobody"] : []), path.join(dir, "pgbouncer.ini")], {
    stdio: "ignore",
  });
  const url = `postgresql://postgres@127.0.0.1:${port}/app`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await withPgClient(url, (c) => c.query("SELECT 1"));
      break;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`pgbouncer did not start: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    admin: (command) => withPgClient(`postgresql://postgres@127.0.0.1:${port}/pgbouncer`, async (c) => (await c.query(command)).rows),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      removeDir(dir);
    },
  };
}
