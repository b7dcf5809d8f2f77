-- Spend controls (lib/spend-alerts, lib/outbound; docs/API-NOTES.md "Spend alerts and webhooks").

-- An account's alert settings (a person's or an organisation's); no row: the defaults (80% and 100%
-- of the monthly allocation, low balance under 50 credits, email on).
CREATE TABLE "alert_settings" (
    "account_id" TEXT NOT NULL,
    "allocation_thresholds" INTEGER[] NOT NULL DEFAULT ARRAY[80, 100]::INTEGER[],
    "low_balance" INTEGER,
    "email" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_settings_pkey" PRIMARY KEY ("account_id")
);
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A key's alert thresholds, percentages of its budget (default: 100%).
ALTER TABLE "api_keys" ADD COLUMN "alert_thresholds" INTEGER[] NOT NULL DEFAULT ARRAY[100]::INTEGER[];

-- An alert that fired: once per (account, alert, period), whatever the concurrency or the instance.
CREATE TABLE "alert_firings" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "alert" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "event_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_firings_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "alert_firings_account_id_alert_period_key" ON "alert_firings"("account_id", "alert", "period");
ALTER TABLE "alert_firings" ADD CONSTRAINT "alert_firings_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An account's outbound webhook endpoints: the events it wants, its signing secret.
CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "events" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "secret" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" TEXT,
    "created_by" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_endpoints_account_id_idx" ON "webhook_endpoints"("account_id");
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The outbox: an event (written in the transaction of what it tells), and one delivery per endpoint
-- that wants it (and per email recipient), each retried until delivered or 24 hours old.
CREATE TABLE "outbound_events" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_events_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "outbound_events_seq_key" ON "outbound_events"("seq");
CREATE INDEX "outbound_events_account_id_created_at_idx" ON "outbound_events"("account_id", "created_at");
ALTER TABLE "outbound_events" ADD CONSTRAINT "outbound_events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "outbound_deliveries" (
    "id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "endpoint_id" TEXT,
    "email_to" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_status" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "outbound_deliveries_status_next_attempt_at_idx" ON "outbound_deliveries"("status", "next_attempt_at");
CREATE INDEX "outbound_deliveries_endpoint_id_created_at_idx" ON "outbound_deliveries"("endpoint_id", "created_at");
CREATE INDEX "outbound_deliveries_event_id_idx" ON "outbound_deliveries"("event_id");
ALTER TABLE "outbound_deliveries" ADD CONSTRAINT "outbound_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "outbound_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "outbound_deliveries" ADD CONSTRAINT "outbound_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
