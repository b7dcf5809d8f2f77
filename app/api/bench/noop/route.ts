import { z } from "zod";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * The benchmark's baseline: the same server and route wrapper, no session, no rate limit, no database.
 * Answers outside production, or in production only with BENCH_ROUTES=true; 404 otherwise.
 */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "none",
      summary: "Benchmark baseline (no session, no rate limit, no database)",
      description: "Available outside production, or with BENCH_ROUTES=true; 404 otherwise.",
      tags: ["bench"],
      errors: [404],
      response: z.object({ ok: z.literal(true) }),
    },
    () => {
      const e = env();
      if (e.isProduction && !e.BENCH_ROUTES) throw new AppError("not_found", "Not found");
      return { ok: true };
    },
  ),
});
