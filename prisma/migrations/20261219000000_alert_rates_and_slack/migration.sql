-- Spend alerts round two (lib/spend-alerts): spend.rate fires when an hour's settled credits reach
-- hourly_spend_limit (null or 0: off); credits.projected_overrun when the cycle's pace would spend more
-- than the balance before the period ends (on unless turned off). Webhook endpoints may take a
-- Slack-compatible body ({"text": ...}) instead of the event itself.
ALTER TABLE "alert_settings" ADD COLUMN "hourly_spend_limit" INTEGER;
ALTER TABLE "alert_settings" ADD COLUMN "projected_overrun" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "webhook_endpoints" ADD COLUMN "format" TEXT NOT NULL DEFAULT 'standard';
