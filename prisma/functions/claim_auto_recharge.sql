-- Trigger function (AFTER INSERT on credit_transactions, a charge's rows: amount < 0, type usage;
-- migration 20261209000000): auto-recharge's claim, in the charge's own transaction, so a charge pays no extra round trip for it and no crossing
-- is missed or claimed twice. When the row leaves the account's balance under its auto-recharge
-- threshold (settings on, not paused), one auto_recharges row is claimed, unless one is already in
-- flight (the unique auto_recharges.in_flight) or the calendar month's limits (count
-- and amount, recharges that did not fail) would be passed. The settings row is locked before the
-- month is counted, so concurrent charges count one after the other and the limits hold exactly.
-- The payment itself happens off the request path (lib/billing/auto-recharge/run-auto-recharges.ts).
CREATE OR REPLACE FUNCTION claim_auto_recharge() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
    s RECORD;
    month_key TEXT;
    used_count INTEGER;
    used_amount INTEGER;
BEGIN
    SELECT ars.threshold INTO s FROM auto_recharge_settings ars
        WHERE ars.account_id = NEW.user_id AND ars.enabled AND ars.paused_at IS NULL;
    IF NOT FOUND OR NEW.balance_after >= s.threshold THEN
        RETURN NULL;
    END IF;
    SELECT * INTO s FROM auto_recharge_settings ars WHERE ars.account_id = NEW.user_id FOR UPDATE;
    IF NOT s.enabled OR s.paused_at IS NOT NULL THEN
        RETURN NULL;
    END IF;
    month_key := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM');
    SELECT count(*)::INTEGER, COALESCE(sum(ar.amount), 0)::INTEGER INTO used_count, used_amount
        FROM auto_recharges ar WHERE ar.account_id = NEW.user_id AND ar.month = month_key AND ar.status <> 'failed';
    IF used_count >= s.monthly_max_count OR used_amount + s.amount > s.monthly_max_amount THEN
        RETURN NULL;
    END IF;
    INSERT INTO auto_recharges (id, account_id, month, status, variant_id, credits, amount, currency, balance_at_claim, in_flight, created_at, updated_at)
        VALUES (gen_random_uuid()::TEXT, NEW.user_id, month_key, 'claimed', s.variant_id, s.credits, s.amount, s.currency, NEW.balance_after,
                NEW.user_id, now(), now())
        ON CONFLICT (in_flight) DO NOTHING;
    RETURN NULL;
END;
$$;
