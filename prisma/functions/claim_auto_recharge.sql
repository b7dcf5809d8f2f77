-- Trigger function (AFTER INSERT on credit_transactions, a charge's rows: amount < 0, type usage;
-- migration 20261209000000): auto-recharge's claim, in the charge's own transaction, so a charge pays
-- no extra round trip for it and no crossing is missed or claimed twice. The claim itself is
-- claim_auto_recharge_for (prisma/functions/claim_auto_recharge_for.sql), which saving the settings
-- calls too. The payment happens off the request path (lib/billing/auto-recharge/run-auto-recharges.ts).
-- Its first test (settings on, balance under the threshold) is repeated here: almost every charge
-- fails it, and then returns without a nested PL/pgSQL call (measured in docs/BENCHMARKS.md,
-- "Organisations round two: a personal charge's price"). claim_auto_recharge_for tests it again under
-- the settings row's lock, so this is only a shortcut.
CREATE OR REPLACE FUNCTION claim_auto_recharge() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
    recharge_below INTEGER;
BEGIN
    SELECT ars.threshold INTO recharge_below FROM auto_recharge_settings ars
        WHERE ars.account_id = NEW.user_id AND ars.enabled AND ars.paused_at IS NULL;
    IF NOT FOUND OR NEW.balance_after >= recharge_below THEN
        RETURN NULL;
    END IF;
    PERFORM claim_auto_recharge_for(NEW.user_id, NEW.balance_after);
    RETURN NULL;
END;
$$;
