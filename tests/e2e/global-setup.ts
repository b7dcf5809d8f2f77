import type { TestProject } from "vitest/node";
import { E2E_IDENTITY_SECRET, ensureBuild, removeDir, startServer, type RunningServer } from "./server";

/**
 * e2e: `next build` (skipped when .next is newer than the sources, or with E2E_SKIP_BUILD=true),
 * then `next start` on a free PORT with a temporary DATA_DIR (embedded database, production mode with
 * AUTH_DEV_LOGIN=true), ready when /api/health answers 200; stopped by PID in teardown.
 */
let server: RunningServer | undefined;

export async function setup(project: TestProject) {
  ensureBuild();
  server = await startServer({ IDENTITY_WEBHOOK_SECRET: E2E_IDENTITY_SECRET });
  project.provide("baseUrl", server.baseUrl);
  project.provide("serverPort", server.port);
  project.provide("serverLog", server.logFile);
  console.log(`e2e: server ${server.baseUrl} (pid ${server.pid}, data ${server.dataDir})`);
}

export async function teardown() {
  if (!server) return;
  await server.stop();
  if (process.env.E2E_KEEP_DATA !== "true") removeDir(server.dataDir);
}

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    serverPort: number;
    serverLog: string;
  }
}
