-- A charge, reserved before the work it pays for (lib/credits/reserve-credits.ts): one statement takes
-- the balance row's lock (the first of lock_charge_accounts' order; a person's plain charge needs no
-- other), decides, writes the charge's row and draws the buckets in the draw order (draw_credits, which
-- writes the usage ledger rows: they are the charge's draws). Outcomes:
--   existing      a retried call with the same idempotency key: its first charge, nothing new;
--   conflict      the key belongs to another account's charge or to something else;
--   no_balance    the account has no balance row (the caller creates one and asks again);
--   rollover_due  a free account's calendar month has turned (free_rollover_due: the caller applies the allocation, asks again);
--   in_debt       the account owes credits a refund took back (credit_balances.debt; amount: the debt):
--                 nothing is charged until credits that arrive pay it (take_back_payment, pay_debt);
--   insufficient  the spendable credits do not cover p_amount: nothing written;
--   charged       reserved: the charge row `reserved`, the buckets drawn.
-- Bonus credits are spendable when the account's auto-use is on, or always (p_bonus_always) when the
-- per-user toggle is off system-wide. The answer carries what the caller reports without a second
-- query: the buckets after the charge, the allocation, its last reset and the tier.
CREATE OR REPLACE FUNCTION reserve_credits(
    p_user TEXT,
    p_amount INTEGER,
    p_month_start TIMESTAMPTZ,
    p_id TEXT,
    p_operation TEXT,
    p_metadata JSONB,
    p_key TEXT,
    p_bonus_always BOOLEAN,
    p_instance TEXT
) RETURNS TABLE (outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    bal RECORD;
    found_op RECORD;
    held INTEGER;
    with_bonus BOOLEAN;
    spendable INTEGER;
    moved RECORD;
BEGIN
    IF p_key IS NOT NULL THEN
        SELECT o.id, o.user_id, o.kind, o.amount INTO found_op FROM credit_operations o WHERE o.idempotency_key = p_key;
        IF FOUND THEN
            IF found_op.user_id <> p_user OR found_op.kind <> 'charge' THEN
                RETURN QUERY SELECT 'conflict'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN,
                    NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT;
                RETURN;
            END IF;
            SELECT cb.subscription_credits, cb.monthly_allocation, cb.reset_at, u.tier, u.bonus_credits_auto_use INTO bal
                FROM users u LEFT JOIN credit_balances cb ON cb.user_id = u.id WHERE u.id = p_user;
            SELECT h.credits INTO held FROM held_bonus(p_user) h;
            RETURN QUERY SELECT 'existing'::TEXT, found_op.id, found_op.amount, COALESCE(bal.subscription_credits, 0), held, bal.bonus_credits_auto_use,
                bal.monthly_allocation, bal.reset_at, bal.tier;
            RETURN;
        END IF;
    END IF;

    -- The balance row's lock: the first lock of every writer (lock_charge_accounts).
    SELECT cb.subscription_credits, cb.monthly_allocation, cb.reset_at, cb.debt, u.tier, u.bonus_credits_auto_use INTO bal
        FROM credit_balances cb JOIN users u ON u.id = cb.user_id
        WHERE cb.user_id = p_user
        FOR UPDATE OF cb;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_balance'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN,
            NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT;
        RETURN;
    END IF;
    IF free_rollover_due(bal.tier, bal.reset_at, p_month_start) THEN
        RETURN QUERY SELECT 'rollover_due'::TEXT, NULL::TEXT, NULL::INTEGER, bal.subscription_credits, NULL::INTEGER, bal.bonus_credits_auto_use,
            bal.monthly_allocation, bal.reset_at, bal.tier;
        RETURN;
    END IF;
    SELECT h.credits INTO held FROM held_bonus(p_user) h;
    IF bal.debt > 0 THEN
        RETURN QUERY SELECT 'in_debt'::TEXT, NULL::TEXT, bal.debt, bal.subscription_credits, held, bal.bonus_credits_auto_use,
            bal.monthly_allocation, bal.reset_at, bal.tier;
        RETURN;
    END IF;
    with_bonus := bal.bonus_credits_auto_use OR p_bonus_always;
    spendable := bal.subscription_credits + (CASE WHEN with_bonus THEN held ELSE 0 END);
    IF spendable < p_amount THEN
        RETURN QUERY SELECT 'insufficient'::TEXT, NULL::TEXT, p_amount, bal.subscription_credits, held, bal.bonus_credits_auto_use,
            bal.monthly_allocation, bal.reset_at, bal.tier;
        RETURN;
    END IF;

    -- The charge's row first: its ledger rows, written by the draw, reference it.
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, model, instance_id, created_at, updated_at)
        VALUES (p_id, p_user, COALESCE(p_key, p_id), 'charge', p_amount, 'reserved',
                jsonb_build_object('operation', p_operation, 'reserved', p_amount, 'metadata', COALESCE(p_metadata, '{}'::JSONB)),
                p_metadata->>'model', p_instance, now(), now());
    SELECT * INTO moved FROM draw_credits(p_user, p_amount, bal.subscription_credits, with_bonus,
                                          p_id, 'usage', p_operation, p_metadata, bal.subscription_credits + held);
    IF moved.subscription + moved.bonus <> p_amount THEN
        RAISE EXCEPTION 'credit buckets changed under their lock';
    END IF;
    RETURN QUERY SELECT 'charged'::TEXT, p_id, p_amount, bal.subscription_credits - moved.subscription, held - moved.bonus, bal.bonus_credits_auto_use,
        bal.monthly_allocation, bal.reset_at, bal.tier;
END;
$$;
