-- Trigger function (AFTER INSERT on credit_transactions, a charge's rows: amount < 0, type usage;
-- migration 20261209000000): auto-recharge's claim, in the charge's own transaction, so a charge pays
-- no extra round trip for it and no crossing is missed or claimed twice. The claim itself is
-- claim_auto_recharge_for (prisma/functions/claim_auto_recharge_for.sql), which saving the settings
-- calls too. The payment happens off the request path (lib/billing/auto-recharge/run-auto-recharges.ts).
CREATE OR REPLACE FUNCTION claim_auto_recharge() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    PERFORM claim_auto_recharge_for(NEW.user_id, NEW.balance_after);
    RETURN NULL;
END;
$$;
