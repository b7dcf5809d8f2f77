-- Operator console (docs/ADMIN.md): every operator write is recorded, and each subscription keeps the
-- history of its state changes (which event, from where, from which status to which).

-- CreateTable
CREATE TABLE "admin_actions" (
    "id" TEXT NOT NULL,
    "operator_id" TEXT,
    "operator" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "request_id" TEXT,
    "details" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "admin_actions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscription_events" (
    "id" TEXT NOT NULL,
    "subscription_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "status_from" TEXT,
    "status_to" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "variant_id" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "admin_actions_created_at_id_idx" ON "admin_actions"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "admin_actions_target_type_target_id_created_at_idx" ON "admin_actions"("target_type", "target_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "subscription_events_subscription_id_recorded_at_idx" ON "subscription_events"("subscription_id", "recorded_at");

-- Cursor-paginated operator lists (newest first) and the webhook delivery filters.
-- CreateIndex
CREATE INDEX "users_created_at_id_idx" ON "users"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_received_at_id_idx" ON "webhook_deliveries"("received_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_source_status_received_at_idx" ON "webhook_deliveries"("source", "status", "received_at" DESC);

-- CreateIndex
CREATE INDEX "email_logs_created_at_id_idx" ON "email_logs"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "subscriptions_provider_customer_id_idx" ON "subscriptions"("provider_customer_id");

-- AddForeignKey
ALTER TABLE "subscription_events" ADD CONSTRAINT "subscription_events_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
