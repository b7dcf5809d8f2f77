-- Team budgets (lib/organisations, prisma/functions/organisation_budget_check.sql): an organisation's
-- credits per UTC day and per calendar month besides its balance, checked in the charge's own
-- statement. The spend windows live on the wallet's balance row, which every charge locks first.
ALTER TABLE "organisations" ADD COLUMN "daily_budget" INTEGER;
ALTER TABLE "organisations" ADD COLUMN "monthly_budget" INTEGER;
ALTER TABLE "credit_balances" ADD COLUMN "budget_day_start" TIMESTAMPTZ(3);
ALTER TABLE "credit_balances" ADD COLUMN "budget_day_spent" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "credit_balances" ADD COLUMN "budget_month_start" TIMESTAMPTZ(3);
ALTER TABLE "credit_balances" ADD COLUMN "budget_month_spent" INTEGER NOT NULL DEFAULT 0;
