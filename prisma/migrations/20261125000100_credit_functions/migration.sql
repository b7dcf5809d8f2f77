-- The AI routes' hot path (lib/credits/reserve-credits.ts, settle-reservation.ts): one round trip to
-- reserve and one to settle, whatever the charge draws from. PL/pgSQL functions keep their plans for
-- the connection's lifetime (PGlite's single connection has no other plan cache), so the statements
-- are parsed and planned once, not on every request. Both run on PostgreSQL 15+ and on PGlite.

-- reserve_credits: charges p_amount credits before the work is done, atomically, under the user's
-- balance row lock (taken first, as by every writer of a user's buckets). Subscription credits first,
-- then bonus purchases, oldest expiry first, when the user's auto-use is on or p_bonus_always (the
-- per-user toggle is off system-wide). Outcomes:
--   charged       the charge is written: the balance and its ledger rows (and, with an idempotency key
--                 or a bonus draw, a credit_operations row recording the draws)
--   existing      p_key was charged before: that reservation, nothing written
--   conflict      p_key belongs to another user or kind of operation
--   insufficient  not enough spendable credits: nothing written
--   rollover_due  a free user's calendar-month allocation is due: the caller applies it and calls again
--   no_balance    the user has no balance row (or does not exist): the caller creates it and calls again
CREATE OR REPLACE FUNCTION reserve_credits(
    p_user TEXT,
    p_amount INTEGER,
    p_month_start TIMESTAMPTZ,
    p_id TEXT,
    p_operation TEXT,
    p_metadata JSONB,
    p_key TEXT,
    p_bonus_always BOOLEAN
) RETURNS TABLE (outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN)
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
                RETURN QUERY SELECT 'conflict'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN;
                RETURN;
            END IF;
            SELECT cb.subscription_credits, u.bonus_credits_auto_use INTO bal
                FROM users u LEFT JOIN credit_balances cb ON cb.user_id = u.id WHERE u.id = p_user;
            SELECT COALESCE(SUM(bp.remaining), 0)::INTEGER INTO held
                FROM bonus_purchases bp WHERE bp.user_id = p_user AND bp.remaining > 0 AND bp.expires_at > now();
            RETURN QUERY SELECT 'existing'::TEXT, found_op.id, found_op.amount, COALESCE(bal.subscription_credits, 0), held, bal.bonus_credits_auto_use;
            RETURN;
        END IF;
    END IF;

    SELECT cb.subscription_credits, cb.reset_at, u.tier, u.bonus_credits_auto_use INTO bal
        FROM credit_balances cb JOIN users u ON u.id = cb.user_id
        WHERE cb.user_id = p_user
        FOR UPDATE OF cb;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_balance'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN;
        RETURN;
    END IF;
    IF bal.tier = 'free' AND (bal.reset_at IS NULL OR bal.reset_at < p_month_start) THEN
        RETURN QUERY SELECT 'rollover_due'::TEXT, NULL::TEXT, NULL::INTEGER, bal.subscription_credits, NULL::INTEGER, bal.bonus_credits_auto_use;
        RETURN;
    END IF;
    SELECT COALESCE(SUM(bp.remaining), 0)::INTEGER INTO held
        FROM bonus_purchases bp WHERE bp.user_id = p_user AND bp.remaining > 0 AND bp.expires_at > now();
    spendable := CASE WHEN bal.bonus_credits_auto_use OR p_bonus_always THEN held ELSE 0 END;
    IF bal.subscription_credits + spendable < p_amount THEN
        RETURN QUERY SELECT 'insufficient'::TEXT, NULL::TEXT, p_amount, bal.subscription_credits, held, bal.bonus_credits_auto_use;
        RETURN;
    END IF;
    running := bal.subscription_credits + held;

    -- The common charge: subscription credits cover it and no key is given. The usage ledger row
    -- (id = reservation id) is the whole record; a refund reads the draw back from it.
    IF p_key IS NULL AND bal.subscription_credits >= p_amount THEN
        UPDATE credit_balances SET subscription_credits = credit_balances.subscription_credits - p_amount, updated_at = now() WHERE user_id = p_user;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (p_id, p_user, -p_amount, running - p_amount, 'usage', p_operation, p_metadata, NULL, NULL, now());
        RETURN QUERY SELECT 'charged'::TEXT, p_id, p_amount, bal.subscription_credits - p_amount, held, bal.bonus_credits_auto_use;
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
    RETURN QUERY SELECT 'charged'::TEXT, p_id, p_amount, bal.subscription_credits - from_subscription, held - (p_amount - from_subscription), bal.bonus_credits_auto_use;
END;
$$;

-- settle_credits: marks reservations settled (the work they paid for succeeded) and merges each one's
-- metadata (the model used, token counts) into its ledger rows and operation row; several at once.
-- A reservation that is not 'reserved' any more (refunded, settled) only gets nothing new.
CREATE OR REPLACE FUNCTION settle_credits(p_ids TEXT[], p_users TEXT[], p_metadata JSONB[])
RETURNS INTEGER
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    i INTEGER;
    settled INTEGER := 0;
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_ids, 1), 0) LOOP
        UPDATE credit_operations
            SET status = 'settled', updated_at = now(),
                details = CASE WHEN p_metadata[i] IS NULL THEN details
                          ELSE jsonb_set(COALESCE(details, '{}'::JSONB), '{metadata}', COALESCE(details->'metadata', '{}'::JSONB) || p_metadata[i]) END
            WHERE id = p_ids[i] AND user_id = p_users[i] AND kind = 'charge' AND status = 'reserved';
        IF FOUND THEN
            settled := settled + 1;
            IF p_metadata[i] IS NOT NULL THEN
                UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::JSONB) || p_metadata[i]
                    WHERE operation_id = p_ids[i] AND user_id = p_users[i];
            END IF;
        ELSIF p_metadata[i] IS NOT NULL THEN
            UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::JSONB) || p_metadata[i]
                WHERE id = p_ids[i] AND user_id = p_users[i] AND type = 'usage' AND operation_id IS NULL;
            IF FOUND THEN settled := settled + 1; END IF;
        END IF;
    END LOOP;
    RETURN settled;
END;
$$;
