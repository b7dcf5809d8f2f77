-- A charge made with an API key that has a budget (lib/credits/reserve-credits.ts). One statement: the
-- balance row, then the key's (lock_charge_accounts), the key's budget window rolled over when a new
-- day or month began, the charge refused when the key's reserved and settled spend plus this one would
-- pass its budget ('over_budget'; 'no_key' for a key that is not the account's, or is revoked: a
-- revoked key never charges, whatever an instance's key cache still says), else reserved by
-- reserve_credits and counted in the window. In-flight reservations count, so concurrent calls never
-- take a key past its budget; the settlement or refund corrects the window (credit_operations_windows).
-- An organisation's key (a service key, or a member's through reserve_credits_for_member) also meets
-- the organisation's budgets ('over_org_budget': the key_* columns then carry the organisation's
-- period, spend and budget; organisation_budget_check).
CREATE OR REPLACE FUNCTION reserve_credits_for_key(
    p_key_id TEXT,
    p_user TEXT,
    p_amount INTEGER,
    p_month_start TIMESTAMPTZ,
    p_id TEXT,
    p_operation TEXT,
    p_metadata JSONB,
    p_bonus_always BOOLEAN,
    p_instance TEXT
) RETURNS TABLE (outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT, key_spent INTEGER, key_budget INTEGER, key_period TEXT, key_window_start TIMESTAMPTZ)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    k RECORD;
    r RECORD;
    b RECORD;
    start TIMESTAMPTZ;
BEGIN
    PERFORM lock_charge_accounts(p_user, NULL, p_key_id);
    SELECT ak.budget_credits, ak.budget_period, ak.window_start, ak.window_spent INTO k
        FROM api_keys ak WHERE ak.id = p_key_id AND ak.user_id = p_user AND ak.revoked_at IS NULL;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_key'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TIMESTAMPTZ;
        RETURN;
    END IF;
    start := api_key_window_start(k.budget_period, now());
    IF k.window_start IS DISTINCT FROM start THEN
        k.window_spent := 0;
        UPDATE api_keys SET window_start = start, window_spent = 0 WHERE id = p_key_id;
    END IF;
    IF k.budget_credits IS NOT NULL AND k.window_spent + p_amount > k.budget_credits THEN
        RETURN QUERY SELECT 'over_budget'::TEXT, NULL::TEXT, p_amount, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            k.window_spent, k.budget_credits, k.budget_period, start;
        RETURN;
    END IF;
    SELECT * INTO b FROM organisation_budget_check(p_user, p_amount);
    IF b.outcome = 'over' THEN
        RETURN QUERY SELECT 'over_org_budget'::TEXT, NULL::TEXT, p_amount, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            b.spent, b.budget, b.period, NULL::TIMESTAMPTZ;
        RETURN;
    END IF;
    SELECT * INTO r FROM reserve_credits(p_user, p_amount, p_month_start, p_id, p_operation, p_metadata, NULL, p_bonus_always, p_instance);
    IF r.outcome = 'charged' THEN
        UPDATE api_keys SET window_spent = window_spent + p_amount WHERE id = p_key_id;
        k.window_spent := k.window_spent + p_amount;
        IF b.outcome = 'ok' THEN
            PERFORM organisation_budget_count(p_user, p_amount);
        END IF;
    END IF;
    RETURN QUERY SELECT r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use, r.monthly_allocation, r.reset_at, r.tier,
        k.window_spent, k.budget_credits, k.budget_period, start;
END;
$$;
