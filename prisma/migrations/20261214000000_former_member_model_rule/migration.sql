-- A former member's model rule is kept with their caps: re-admitted, they come back under it.
ALTER TABLE "organisation_former_members" ADD COLUMN "allowed_models" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
