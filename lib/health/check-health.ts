import { getHeapStatistics } from "node:v8";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { dependencyState } from "@/lib/log";
import packageJson from "@/package.json";

export interface HealthReport {
  status: "healthy" | "unhealthy";
  timestamp: string;
  version: string;
  environment: string;
  checks: { database: "connected" | "disconnected"; memory: "ok" | "critical" };
  responseTime: string;
}

const DB_TIMEOUT_MS = 3000;
/** Heap use above this share of V8's heap limit is reported as critical (the process is about to die). */
const HEAP_CRITICAL_RATIO = 0.95;

async function checkDatabase(): Promise<"connected" | "disconnected"> {
  try {
    const prisma = await Promise.race([
      db(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), DB_TIMEOUT_MS)),
    ]);
    await Promise.race([
      prisma.$queryRaw`SELECT 1`,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), DB_TIMEOUT_MS)),
    ]);
    dependencyState("database", "up");
    return "connected";
  } catch (error) {
    dependencyState("database", "down", { error: (error as Error).message });
    return "disconnected";
  }
}

function checkMemory(): "ok" | "critical" {
  const heap = getHeapStatistics();
  return heap.used_heap_size / heap.heap_size_limit > HEAP_CRITICAL_RATIO ? "critical" : "ok";
}

/** Health of GET /api/health: healthy only when the database answers and memory is not critical. */
export async function checkHealth(): Promise<HealthReport> {
  const started = performance.now();
  const [database, memory] = [await checkDatabase(), checkMemory()];
  const e = env();
  return {
    status: database === "connected" && memory === "ok" ? "healthy" : "unhealthy",
    timestamp: new Date().toISOString(),
    version: e.APP_VERSION ?? packageJson.version,
    environment: e.appEnv,
    checks: { database, memory },
    responseTime: `${Math.round(performance.now() - started)}ms`,
  };
}
