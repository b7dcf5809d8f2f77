-- Auto-recharge's claim for an account whose balance is p_balance: when that is under its threshold
-- (settings on, not paused), one auto_recharges row is claimed, unless one is already in flight (the
-- unique auto_recharges.in_flight) or the calendar month's limits (count and amount, recharges that
-- did not fail) would be passed. The settings row is locked before the month is counted, so
-- concurrent claims count one after the other and the limits hold exactly. Called by the charge
-- trigger (claim_auto_recharge.sql) and when the settings are saved on with the balance already under
-- the threshold (lib/billing/auto-recharge/auto-recharge-settings.ts). Answers whether it claimed one.
CREATE OR REPLACE FUNCTION claim_auto_recharge_for(p_account TEXT, p_balance INTEGER) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
    s RECORD;
    month_key TEXT;
    used_count INTEGER;
    used_amount INTEGER;
    claimed INTEGER;
BEGIN
    SELECT ars.threshold INTO s FROM auto_recharge_settings ars
        WHERE ars.account_id = p_account AND ars.enabled AND ars.paused_at IS NULL;
    IF NOT FOUND OR p_balance >= s.threshold THEN
        RETURN FALSE;
    END IF;
    SELECT * INTO s FROM auto_recharge_settings ars WHERE ars.account_id = p_account FOR UPDATE;
    IF NOT s.enabled OR s.paused_at IS NOT NULL OR p_balance >= s.threshold THEN
        RETURN FALSE;
    END IF;
    month_key := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM');
    SELECT count(*)::INTEGER, COALESCE(sum(ar.amount), 0)::INTEGER INTO used_count, used_amount
        FROM auto_recharges ar WHERE ar.account_id = p_account AND ar.month = month_key AND ar.status <> 'failed';
    IF used_count >= s.monthly_max_count OR used_amount + s.amount > s.monthly_max_amount THEN
        RETURN FALSE;
    END IF;
    INSERT INTO auto_recharges (id, account_id, month, status, variant_id, credits, amount, currency, balance_at_claim, in_flight, created_at, updated_at)
        VALUES (gen_random_uuid()::TEXT, p_account, month_key, 'claimed', s.variant_id, s.credits, s.amount, s.currency, p_balance,
                p_account, now(), now())
        ON CONFLICT (in_flight) DO NOTHING;
    GET DIAGNOSTICS claimed = ROW_COUNT;
    RETURN claimed > 0;
END;
$$;
