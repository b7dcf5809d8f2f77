-- From here on, each database function has one definition: its file in prisma/functions/<name>.sql.
-- lib/db/migrate.ts applies every file after the migrations on each run (CREATE OR REPLACE), and a
-- migration that needs one at its point includes it (`\i prisma/functions/<name>.sql`, as psql reads
-- it); tests/pg/functions-drift.test.ts compares each live definition with its file. The migrations
-- before this one still hold the definitions they applied then: history, kept for their checksums.

-- settle_credits was replaced by settle_charges (20261126000100) and is called by nothing.
DROP FUNCTION IF EXISTS settle_credits(TEXT[], TEXT[], JSONB[]);

-- The member's and the key's windows were corrected by two triggers, whose lock order was their
-- names' alphabetical order; one trigger function now takes the two rows in the documented order.
DROP TRIGGER IF EXISTS credit_operations_cap_spend ON credit_operations;
DROP TRIGGER IF EXISTS credit_operations_key_spend ON credit_operations;
DROP FUNCTION IF EXISTS credit_operations_cap_spend();
DROP FUNCTION IF EXISTS credit_operations_key_spend();
\i prisma/functions/credit_operations_windows.sql
CREATE TRIGGER credit_operations_windows AFTER UPDATE OF status ON credit_operations
    FOR EACH ROW WHEN (NEW.member_id IS NOT NULL OR NEW.api_key_id IS NOT NULL) EXECUTE FUNCTION credit_operations_windows();
