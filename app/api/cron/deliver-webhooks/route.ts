import { CRON_JOBS } from "@/lib/cron/jobs";
import { cronRoute } from "@/lib/http/cron-route";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Every 5 minutes (vercel.json): send due outbound webhooks and alert emails (lib/outbound/deliver-outbound.ts). Long-running servers also do it every 10 seconds. */
export const { GET, POST, PUT, PATCH, DELETE } = methods(cronRoute(CRON_JOBS["deliver-webhooks"]));
