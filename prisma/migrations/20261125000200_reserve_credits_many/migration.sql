-- reserve_credits also answers the balance row's monthly allocation, last reset and the user's tier
-- (what /api/ai/stream's X-RateLimit-* allowance headers describe), read under the lock it takes
-- anyway, so a charged stream needs no second query. The arguments and outcomes are unchanged
-- (migration 20261125000100_credit_functions); a changed result type needs DROP and CREATE.
DROP FUNCTION reserve_credits(TEXT, INTEGER, TIMESTAMPTZ, TEXT, TEXT, JSONB, TEXT, BOOLEAN);

CREATE FUNCTION reserve_credits(
    p_user TEXT,
    p_amount INTEGER,
    p_month_start TIMESTAMPTZ,
    p_id TEXT,
    p_operation TEXT,
    p_metadata JSONB,
    p_key TEXT,
    p_bonus_always BOOLEAN
) RETURNS TABLE (outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    bal RECORD;
    found_op RECORD;
    purchase RECORD;
    draw JSONB;
    held INTEGER;
    spendable INTEGER;
    left_over INTEGER;
    take INTEGER;
    from_subscription INTEGER := 0;
    running INTEGER;
    draws JSONB := '[]'::JSONB;
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
            SELECT COALESCE(SUM(bp.remaining), 0)::INTEGER INTO held
                FROM bonus_purchases bp WHERE bp.user_id = p_user AND bp.remaining > 0 AND bp.expires_at > now();
            RETURN QUERY SELECT 'existing'::TEXT, found_op.id, found_op.amount, COALESCE(bal.subscription_credits, 0), held, bal.bonus_credits_auto_use,
                bal.monthly_allocation, bal.reset_at, bal.tier;
            RETURN;
        END IF;
    END IF;

    SELECT cb.subscription_credits, cb.monthly_allocation, cb.reset_at, u.tier, u.bonus_credits_auto_use INTO bal
        FROM credit_balances cb JOIN users u ON u.id = cb.user_id
        WHERE cb.user_id = p_user
        FOR UPDATE OF cb;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_balance'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN,
                NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT;
        RETURN;
    END IF;
    IF bal.tier = 'free' AND (bal.reset_at IS NULL OR bal.reset_at < p_month_start) THEN
        RETURN QUERY SELECT 'rollover_due'::TEXT, NULL::TEXT, NULL::INTEGER, bal.subscription_credits, NULL::INTEGER, bal.bonus_credits_auto_use,
            bal.monthly_allocation, bal.reset_at, bal.tier;
        RETURN;
    END IF;
    SELECT COALESCE(SUM(bp.remaining), 0)::INTEGER INTO held
        FROM bonus_purchases bp WHERE bp.user_id = p_user AND bp.remaining > 0 AND bp.expires_at > now();
    spendable := CASE WHEN bal.bonus_credits_auto_use OR p_bonus_always THEN held ELSE 0 END;
    IF bal.subscription_credits + spendable < p_amount THEN
        RETURN QUERY SELECT 'insufficient'::TEXT, NULL::TEXT, p_amount, bal.subscription_credits, held, bal.bonus_credits_auto_use,
            bal.monthly_allocation, bal.reset_at, bal.tier;
        RETURN;
    END IF;
    running := bal.subscription_credits + held;

    -- The common charge: subscription credits cover it and no key is given. The usage ledger row
    -- (id = reservation id) is the whole record; a refund reads the draw back from it.
    IF p_key IS NULL AND bal.subscription_credits >= p_amount THEN
        UPDATE credit_balances SET subscription_credits = credit_balances.subscription_credits - p_amount, updated_at = now() WHERE user_id = p_user;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (p_id, p_user, -p_amount, running - p_amount, 'usage', p_operation, p_metadata, NULL, NULL, now());
        RETURN QUERY SELECT 'charged'::TEXT, p_id, p_amount, bal.subscription_credits - p_amount, held, bal.bonus_credits_auto_use,
            bal.monthly_allocation, bal.reset_at, bal.tier;
        RETURN;
    END IF;

    -- Otherwise the draws are recorded in a credit_operations row (with the key, if any): subscription
    -- credits first, then bonus purchases, oldest expiry first.
    left_over := p_amount;
    from_subscription := LEAST(bal.subscription_credits, left_over);
    IF from_subscription > 0 THEN
        UPDATE credit_balances SET subscription_credits = credit_balances.subscription_credits - from_subscription, updated_at = now() WHERE user_id = p_user;
        draws := draws || jsonb_build_array(jsonb_build_object('bonusPurchaseId', NULL, 'amount', from_subscription));
        left_over := left_over - from_subscription;
    END IF;
    IF left_over > 0 THEN
        FOR purchase IN
            SELECT bp.id, bp.remaining FROM bonus_purchases bp
            WHERE bp.user_id = p_user AND bp.remaining > 0 AND bp.expires_at > now()
            ORDER BY bp.expires_at ASC, bp.created_at ASC, bp.id ASC
            FOR UPDATE
        LOOP
            EXIT WHEN left_over = 0;
            take := LEAST(purchase.remaining, left_over);
            UPDATE bonus_purchases SET remaining = remaining - take WHERE id = purchase.id;
            draws := draws || jsonb_build_array(jsonb_build_object('bonusPurchaseId', purchase.id, 'amount', take));
            left_over := left_over - take;
        END LOOP;
    END IF;
    IF left_over > 0 THEN
        RAISE EXCEPTION 'credit buckets changed under their lock';
    END IF;
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
        VALUES (p_id, p_user, COALESCE(p_key, p_id), 'charge', p_amount, 'reserved',
                jsonb_build_object('operation', p_operation, 'draws', draws), now(), now());
    FOR draw IN SELECT value FROM jsonb_array_elements(draws) LOOP
        running := running - (draw->>'amount')::INTEGER;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (gen_random_uuid()::TEXT, p_user, -(draw->>'amount')::INTEGER, running, 'usage', p_operation, p_metadata,
                    draw->>'bonusPurchaseId', p_id, clock_timestamp());
    END LOOP;
    RETURN QUERY SELECT 'charged'::TEXT, p_id, p_amount, bal.subscription_credits - from_subscription, held - (p_amount - from_subscription), bal.bonus_credits_auto_use,
        bal.monthly_allocation, bal.reset_at, bal.tier;
END;
$$;

-- reserve_credits_many: several reservations in one statement (lib/credits/reserve-credits.ts groups
-- the reservations that arrive while one is being written; the fixed cost of a statement, not the
-- charge itself, is most of a reservation's time, above all on the embedded database). Item i gets the
-- outcome reserve_credits would give it alone, in the order given: the caller sorts the items by user
-- so that every batch takes the balance row locks in the same order. One transaction: an error in any
-- item (a concurrent insert of the same idempotency key) fails them all, and the caller then reserves
-- each one alone.
CREATE OR REPLACE FUNCTION reserve_credits_many(
    p_users TEXT[],
    p_amounts INTEGER[],
    p_month_start TIMESTAMPTZ,
    p_ids TEXT[],
    p_operations TEXT[],
    p_metadata JSONB[],
    p_keys TEXT[],
    p_bonus_always BOOLEAN
) RETURNS TABLE (item INTEGER, outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT)
LANGUAGE plpgsql AS $$
DECLARE
    i INTEGER;
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_users, 1), 0) LOOP
        RETURN QUERY SELECT i, r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use,
                r.monthly_allocation, r.reset_at, r.tier
            FROM reserve_credits(p_users[i], p_amounts[i], p_month_start, p_ids[i], p_operations[i], p_metadata[i], p_keys[i], p_bonus_always) r;
    END LOOP;
END;
$$;
