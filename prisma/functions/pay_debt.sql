-- Credits that arrive pay the account's debt first (a purchase, a subscription's allocation, an
-- operator's credit): under the caller's balance lock, takes up to p_arriving off the debt and answers
-- how much it took; the caller puts the rest into its bucket. The balance (buckets less the debt)
-- rises by p_arriving either way, so the arrival's one ledger row, of the whole amount, stays true.
CREATE OR REPLACE FUNCTION pay_debt(p_user TEXT, p_arriving INTEGER) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    owed INTEGER;
    paid INTEGER;
BEGIN
    SELECT cb.debt INTO owed FROM credit_balances cb WHERE cb.user_id = p_user;
    paid := LEAST(COALESCE(owed, 0), GREATEST(p_arriving, 0));
    IF paid > 0 THEN
        UPDATE credit_balances SET debt = debt - paid, updated_at = now() WHERE user_id = p_user;
    END IF;
    RETURN paid;
END;
$$;
