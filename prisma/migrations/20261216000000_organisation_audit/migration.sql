-- The audit log an organisation's owner and admins read (lib/audit): every role, cap, model rule, key,
-- invitation, ownership and wallet change, who made it and when, written in the change's own transaction.
CREATE TABLE "organisation_audit_events" (
    "id" TEXT NOT NULL,
    "organisation_id" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_email" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "details" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organisation_audit_events_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "organisation_audit_events_organisation_id_created_at_id_idx" ON "organisation_audit_events"("organisation_id", "created_at" DESC, "id" DESC);

ALTER TABLE "organisation_audit_events" ADD CONSTRAINT "organisation_audit_events_organisation_id_fkey" FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
