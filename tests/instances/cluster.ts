import { randomBytes } from "node:crypto";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { testDatabaseAdminUrl, withPgClient } from "@/tests/helpers/pg";
import { applyMigrations } from "@/lib/db/migrate";
import { removeDir, startServer, type RunningServer } from "@/tests/e2e/server";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { startResendStub, type ResendStub } from "@/tests/helpers/resend-stub";
import { startUpstashEmulator } from "@/tests/helpers/upstash-emulator";
import { startPgBouncer } from "@/tests/helpers/pgbouncer";

/**
 * Three production servers (the standalone build) on one PostgreSQL database and one Redis (through
 * the Upstash REST emulator), behind a small round-robin proxy that appends the client's address to
 * X-Forwarded-For as a load balancer does (the servers trust one hop). Optionally through PgBouncer
 * in transaction pooling mode, as serverless platforms' pooled connection strings are. The first instance
 * may run several server processes (WEB_CONCURRENCY): the balancer's third of the traffic is then
 * shared by them, and every rule that holds across instances must hold across its processes too.
 */
export const CRON_SECRET = "instances-cron-secret-0123456789";
export const ADMIN_TOKEN = "instances-admin-token-0123456789abcdef";
export const IDENTITY_SECRET = "whsec_aW5zdGFuY2VzLWlkZW50aXR5LXNlY3JldC0wMTIz";

export interface Cluster {
  /** The round-robin proxy: every request goes to the next instance. */
  url: string;
  instances: RunningServer[];
  /** Server processes in all (each registers as an instance in the database): more than instances when the first runs several. */
  processes: number;
  stub: OpenAiStub;
  resend: ResendStub;
  /** SQL on the database itself (not through the pooler). */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** Round robin over the instances, appending the client's address to X-Forwarded-For (one trusted hop); a client's leaving reaches the instance. */
function startBalancer(instances: RunningServer[]): Promise<Server> {
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const target = instances[next++ % instances.length];
    const forwarded = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const upstream = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, "x-forwarded-for": forwarded },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    // A client that leaves closes the upstream request too, as load balancers do (nginx, ALB).
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

export async function startCluster(options: {
  viaPgBouncer: boolean;
  instances?: number;
  env?: Record<string, string>;
  /** WEB_CONCURRENCY of the first instance: its server processes (each a whole instance of its own in the database). */
  firstInstanceProcesses?: number;
}): Promise<Cluster> {
  const admin = testDatabaseAdminUrl();
  const redisPort = Number(process.env.TEST_REDIS_PORT);
  if (!redisPort) throw new Error("TEST_REDIS_PORT is not set: scripts/test-services.sh start");
  const name = `inst_${randomBytes(5).toString("hex")}`;
  await withPgClient(admin, (c) => c.query(`CREATE DATABASE ${name}`));
  const direct = new URL(admin);
  direct.pathname = `/${name}`;
  await withPgClient(direct.toString(), (c) =>
    applyMigrations({
      exec: async (sql) => {
        await c.query(sql);
      },
      query: async (sql, params) => (await c.query(sql, params as unknown[])).rows,
    }),
  );
  const pooler = options.viaPgBouncer ? await startPgBouncer(direct.toString()) : null;
  const [redis, stub, resend] = await Promise.all([startUpstashEmulator({ redisPort }), startOpenAiStub(), startResendStub()]);
  // Each cluster starts with empty rate-limit windows (the client's address is the same for every run).
  const flushed = await fetch(redis.url, {
    method: "POST",
    headers: { authorization: `Bearer ${redis.token}` },
    body: JSON.stringify(["FLUSHDB"]),
  });
  if (!flushed.ok) throw new Error(`FLUSHDB through the Upstash emulator: ${flushed.status}`);
  const env = {
    DATABASE_URL: pooler ? pooler.url : direct.toString(),
    ...(pooler ? { DATABASE_PREPARED_STATEMENTS: "false" } : {}),
    DATABASE_POOL_MAX: "10",
    ALLOW_EMBEDDED_DATABASE: undefined,
    UPSTASH_REDIS_REST_URL: redis.url,
    UPSTASH_REDIS_REST_TOKEN: redis.token,
    OPENAI_API_KEY: "sk-instances-upstream",
    OPENAI_BASE_URL: stub.url,
    ...resend.env,
    EMAIL_FROM: "Instances <noreply@example.com>",
    TRUSTED_PROXY_HOPS: "1",
    CRON_SECRET,
    ADMIN_API_TOKEN: ADMIN_TOKEN,
    IDENTITY_WEBHOOK_SECRET: IDENTITY_SECRET,
    RATE_LIMIT_ENABLED: "true",
    // One user's AI requests in progress, across the three (held in Redis): 64, so the suite's 64
    // concurrent charges of one user all reach the ledger, and the 65th shows the cap.
    AI_MAX_CONCURRENT_PER_USER: "64",
    ...options.env,
  };
  const instances = await Promise.all(
    Array.from({ length: options.instances ?? 3 }, (_, i) =>
      startServer(i === 0 && options.firstInstanceProcesses ? { ...env, WEB_CONCURRENCY: String(options.firstInstanceProcesses) } : env, {
        dataDirPrefix: "svc-inst-",
      }),
    ),
  );
  const balancer = await startBalancer(instances);
  const { port } = balancer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    instances,
    processes: instances.length + Math.max(0, (options.firstInstanceProcesses ?? 1) - 1),
    stub,
    resend,
    sql: (text, params) => withPgClient(direct.toString(), async (c) => (await c.query(text, params as unknown[])).rows),
    stop: async () => {
      await new Promise((r) => balancer.close(r));
      for (const s of instances) {
        await s.stop();
        removeDir(s.dataDir);
      }
      await Promise.all([redis.close(), stub.close(), resend.close()]);
      await pooler?.stop();
      await withPgClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined);
    },
  };
}
