import { CRON_JOBS } from "@/lib/cron/jobs";
import { cronRoute } from "@/lib/http/cron-route";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Daily at 03:00 UTC (vercel.json): expire bonus credit purchases (credit_based; lib/cron/jobs.ts). */
export const { GET, POST, PUT, PATCH, DELETE } = methods(cronRoute(CRON_JOBS["expire-bonus-credits"]));
