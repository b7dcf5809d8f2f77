-- A charge's draws are its usage ledger rows (charge_draws reads them); draw_credits and
-- give_back_credits write the rows of what they move themselves, so a charge makes one nested call
-- where it made three (docs/BENCHMARKS.md "Money rules in files: a charge's price"). The functions
-- this replaces are dropped; the new definitions are applied from prisma/functions after the migrations.
DROP FUNCTION IF EXISTS draw_credits(TEXT, INTEGER, INTEGER, BOOLEAN);
DROP FUNCTION IF EXISTS give_back_credits(TEXT, JSONB, INTEGER);
DROP FUNCTION IF EXISTS insert_credit_rows(TEXT, TEXT, TEXT, TEXT, JSONB, JSONB, INTEGER, INTEGER);
DROP FUNCTION IF EXISTS moved_credits(JSONB);
