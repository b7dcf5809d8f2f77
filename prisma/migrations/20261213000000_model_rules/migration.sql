-- Model rules: the models an organisation's members may use, and per member a narrower list (empty:
-- no rule), enforced at every charge to the organisation's wallet and in /v1/models (lib/credits/model-rules.ts).
ALTER TABLE "organisations" ADD COLUMN "allowed_models" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "organisation_members" ADD COLUMN "allowed_models" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
