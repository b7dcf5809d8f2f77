import { CRON_JOBS } from "@/lib/cron/jobs";
import { cronRoute } from "@/lib/http/cron-route";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Daily at 02:00 UTC (vercel.json): expire trials (classic_saas), sweep abandoned uploads (lib/cron/jobs.ts). */
export const { GET, POST, PUT, PATCH, DELETE } = methods(cronRoute(CRON_JOBS["check-trials"]));
