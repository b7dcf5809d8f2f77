import { z } from "zod";

/** GET /api/health (SPEC §4.6): the same body with 200 (healthy) and 503 (unhealthy). */
export const healthResponse = z.object({
  status: z.enum(["healthy", "unhealthy"]),
  timestamp: z.string(),
  version: z.string(),
  environment: z.string(),
  checks: z.object({ database: z.enum(["connected", "disconnected"]), memory: z.enum(["ok", "critical"]) }),
  responseTime: z.string(),
});
