-- The lock order of every writer of a wallet, taken in one place: the account's balance row, then the
-- organisation member's row, then the API key's row (docs/ARCHITECTURE.md "Money rules"). A charge
-- made for a member or with a budgeted key takes all three here before anything is decided; a
-- person's plain charge takes only the first (reserve_credits' SELECT ... FOR UPDATE of the balance);
-- a settlement or refund takes the balance first and the member's and key's rows through
-- credit_operations_windows, in the same order. An AI slot's advisory lock, when a statement takes one,
-- comes before all of them; bonus purchases and the charge row after the balance. No two writers
-- wait for each other in opposite orders, so none deadlock.
CREATE OR REPLACE FUNCTION lock_charge_accounts(p_user TEXT, p_member TEXT, p_key_id TEXT)
RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM credit_balances WHERE user_id = p_user FOR UPDATE;
    IF p_member IS NOT NULL THEN
        PERFORM 1 FROM organisation_members WHERE organisation_id = p_user AND user_id = p_member FOR UPDATE;
    END IF;
    IF p_key_id IS NOT NULL THEN
        PERFORM 1 FROM api_keys WHERE id = p_key_id FOR UPDATE;
    END IF;
END;
$$;
