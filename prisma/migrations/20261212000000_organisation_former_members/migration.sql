-- A member who leaves or is removed keeps their caps and spend counters here: re-admitted, they start
-- where they left off (removing and re-inviting someone is no way around a cap).
CREATE TABLE "organisation_former_members" (
    "organisation_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "daily_cap" INTEGER,
    "monthly_cap" INTEGER,
    "day_start" TIMESTAMPTZ(3),
    "day_spent" INTEGER NOT NULL DEFAULT 0,
    "month_start" TIMESTAMPTZ(3),
    "month_spent" INTEGER NOT NULL DEFAULT 0,
    "left_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organisation_former_members_pkey" PRIMARY KEY ("organisation_id", "user_id")
);
CREATE INDEX "organisation_former_members_user_id_idx" ON "organisation_former_members"("user_id");
ALTER TABLE "organisation_former_members" ADD CONSTRAINT "organisation_former_members_organisation_id_fkey" FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "organisation_former_members" ADD CONSTRAINT "organisation_former_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
