-- Which server process holds each reserved charge (lib/credits/refund-stale-reservations.ts): a
-- charge is settled by the process that made it, when its call ends (every call has a deadline), so
-- the sweep refunds only the charges of a process that is gone: one that stopped (stopped_at), or
-- whose heartbeat is old. A live stream, however long its client takes to read it, is never touched.
CREATE TABLE "server_instances" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stopped_at" TIMESTAMPTZ(3),

    CONSTRAINT "server_instances_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "server_instances_heartbeat_at_idx" ON "server_instances"("heartbeat_at");

ALTER TABLE "credit_operations" ADD COLUMN "instance_id" TEXT;

-- The reservation functions take the instance (p_instance) and record it on the charge. The old
-- signatures go: a function with one more argument is another function in PostgreSQL.
DROP FUNCTION IF EXISTS reserve_credits_many(TEXT[], INTEGER[], TIMESTAMPTZ, TEXT[], TEXT[], JSONB[], TEXT[], BOOLEAN);
DROP FUNCTION IF EXISTS reserve_credits_for_key(TEXT, TEXT, INTEGER, TIMESTAMPTZ, TEXT, TEXT, JSONB, BOOLEAN);
DROP FUNCTION IF EXISTS reserve_credits(TEXT, INTEGER, TIMESTAMPTZ, TEXT, TEXT, JSONB, TEXT, BOOLEAN);

-- reserve_credits: as in migration 20261126000100, the instance recorded on the charge.
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

    -- Subscription credits first, then bonus purchases, oldest expiry first.
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
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, model, instance_id, created_at, updated_at)
        VALUES (p_id, p_user, COALESCE(p_key, p_id), 'charge', p_amount, 'reserved',
                jsonb_build_object('operation', p_operation, 'draws', draws, 'reserved', p_amount, 'metadata', COALESCE(p_metadata, '{}'::JSONB)),
                p_metadata->>'model', p_instance, now(), now());
    -- One row per draw; several draws of one charge get increasing times (their order is their story).
    FOR draw IN SELECT value FROM jsonb_array_elements(draws) LOOP
        running := running - (draw->>'amount')::INTEGER;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (gen_random_uuid()::TEXT, p_user, -(draw->>'amount')::INTEGER, running, 'usage', p_operation, p_metadata,
                    draw->>'bonusPurchaseId', p_id, CASE WHEN jsonb_array_length(draws) = 1 THEN now() ELSE clock_timestamp() END);
    END LOOP;
    RETURN QUERY SELECT 'charged'::TEXT, p_id, p_amount, bal.subscription_credits - from_subscription, held - (p_amount - from_subscription), bal.bonus_credits_auto_use,
        bal.monthly_allocation, bal.reset_at, bal.tier;
END;
$$;

-- reserve_credits_many: as in migration 20261125000200, one instance for the whole statement.
CREATE OR REPLACE FUNCTION reserve_credits_many(
    p_users TEXT[],
    p_amounts INTEGER[],
    p_month_start TIMESTAMPTZ,
    p_ids TEXT[],
    p_operations TEXT[],
    p_metadata JSONB[],
    p_keys TEXT[],
    p_bonus_always BOOLEAN,
    p_instance TEXT
) RETURNS TABLE (item INTEGER, outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT)
LANGUAGE plpgsql AS $$
DECLARE
    i INTEGER;
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_users, 1), 0) LOOP
        RETURN QUERY SELECT i, r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use,
                r.monthly_allocation, r.reset_at, r.tier
            FROM reserve_credits(p_users[i], p_amounts[i], p_month_start, p_ids[i], p_operations[i], p_metadata[i], p_keys[i], p_bonus_always, p_instance) r;
    END LOOP;
END;
$$;

-- reserve_credits_for_key: as in migration 20261126000200, the instance recorded on the charge.
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
    start TIMESTAMPTZ;
BEGIN
    PERFORM 1 FROM credit_balances cb WHERE cb.user_id = p_user FOR UPDATE;
    SELECT ak.budget_credits, ak.budget_period, ak.window_start, ak.window_spent INTO k
        FROM api_keys ak WHERE ak.id = p_key_id AND ak.user_id = p_user FOR UPDATE;
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
    SELECT * INTO r FROM reserve_credits(p_user, p_amount, p_month_start, p_id, p_operation, p_metadata, NULL, p_bonus_always, p_instance);
    IF r.outcome = 'charged' THEN
        UPDATE api_keys SET window_spent = window_spent + p_amount WHERE id = p_key_id;
        k.window_spent := k.window_spent + p_amount;
    END IF;
    RETURN QUERY SELECT r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use, r.monthly_allocation, r.reset_at, r.tier,
        k.window_spent, k.budget_credits, k.budget_period, start;
END;
$$;
