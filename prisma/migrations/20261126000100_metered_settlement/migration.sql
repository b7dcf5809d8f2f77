-- Cost-true credits (lib/credits/settle-reservation.ts, docs/API-NOTES.md "Pricing"): a charge is
-- reserved at its worst case and settled at what the call really cost, in one statement that returns
-- the unused part (or draws the rest) and records the usage. Every charge now has a credit_operations
-- row, so a charge left `reserved` by a process that died can be found and refunded.

-- The AI call a charge paid for, for the operator's usage and margin report (lib/admin).
ALTER TABLE "credit_operations" ADD COLUMN "model" TEXT;
ALTER TABLE "credit_operations" ADD COLUMN "cost_micros" BIGINT;
-- The usage report reads charges by time; the cleanup finds charges still reserved by time.
CREATE INDEX "credit_operations_kind_created_at_idx" ON "credit_operations"("kind", "created_at");
CREATE INDEX "credit_operations_status_created_at_idx" ON "credit_operations"("status", "created_at");

-- reserve_credits: as in migration 20261125000200, except that every charge writes its
-- credit_operations row (status 'reserved', the draws in its details, the model from the metadata):
-- the plain one-row charge without it is gone.
CREATE OR REPLACE FUNCTION reserve_credits(
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
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, model, created_at, updated_at)
        VALUES (p_id, p_user, COALESCE(p_key, p_id), 'charge', p_amount, 'reserved',
                jsonb_build_object('operation', p_operation, 'draws', draws, 'reserved', p_amount, 'metadata', COALESCE(p_metadata, '{}'::JSONB)),
                p_metadata->>'model', now(), now());
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

-- settle_charges: settles reserved charges at their final amount, several in one statement (the
-- caller sorts the items by user, so every statement takes the balance row locks in the same order).
-- Item i's charge p_ids[i] was reserved at some amount; p_amounts[i] is what the call really cost
-- (NULL: the reserved amount):
--   less      the difference goes back to the buckets it came from, last drawn first, as `refund`
--             ledger rows of the same operation (reason "unused_reservation");
--   more      the rest is drawn like a reservation (subscription credits, then spendable bonus
--             purchases), never below zero; what could not be drawn is recorded as `uncollected`.
-- The charge's row becomes 'settled' with its final amount, draws, model, provider cost
-- (p_cost_micros, USD millionths) and metadata (merged into its usage ledger rows too). A charge
-- that is not 'reserved' any more (settled, refunded) is left alone: outcome 'not_reserved'.
-- Each item answers the user's buckets after it, so the caller reports the balance without a query.
CREATE OR REPLACE FUNCTION settle_charges(
    p_ids TEXT[],
    p_users TEXT[],
    p_amounts INTEGER[],
    p_metadata JSONB[],
    p_cost_micros BIGINT[],
    p_bonus_always BOOLEAN
) RETURNS TABLE (item INTEGER, outcome TEXT, charged INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    i INTEGER;
    bal RECORD;
    op RECORD;
    purchase RECORD;
    d JSONB;
    draws JSONB;
    kept JSONB;
    target INTEGER;
    delta INTEGER;
    give INTEGER;
    take INTEGER;
    held INTEGER;
    running INTEGER;
    live BOOLEAN;
    uncollected INTEGER := 0;
    meta JSONB;
    op_name TEXT;
    n INTEGER;
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_ids, 1), 0) LOOP
        uncollected := 0;
        meta := COALESCE(p_metadata[i], '{}'::JSONB);
        SELECT cb.subscription_credits, u.bonus_credits_auto_use INTO bal
            FROM credit_balances cb JOIN users u ON u.id = cb.user_id
            WHERE cb.user_id = p_users[i]
            FOR UPDATE OF cb;
        IF NOT FOUND THEN
            RETURN QUERY SELECT i, 'not_reserved'::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN;
            CONTINUE;
        END IF;
        SELECT o.id, o.amount, o.status, o.details INTO op FROM credit_operations o
            WHERE o.id = p_ids[i] AND o.user_id = p_users[i] AND o.kind = 'charge' FOR UPDATE;
        SELECT COALESCE(SUM(bp.remaining), 0)::INTEGER INTO held
            FROM bonus_purchases bp WHERE bp.user_id = p_users[i] AND bp.remaining > 0 AND bp.expires_at > now();
        IF op.id IS NULL OR op.status <> 'reserved' THEN
            -- A charge made before every charge had its row (its one ledger row carries the id): the
            -- metadata is recorded, the amount stands.
            IF op.id IS NULL AND p_metadata[i] IS NOT NULL THEN
                UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::JSONB) || p_metadata[i]
                    WHERE id = p_ids[i] AND user_id = p_users[i] AND type = 'usage' AND operation_id IS NULL;
            END IF;
            RETURN QUERY SELECT i, 'not_reserved'::TEXT, NULL::INTEGER, bal.subscription_credits, held, bal.bonus_credits_auto_use;
            CONTINUE;
        END IF;
        target := COALESCE(p_amounts[i], op.amount);
        IF target < 0 THEN target := 0; END IF;
        draws := COALESCE(op.details->'draws', '[]'::JSONB);
        op_name := COALESCE(op.details->>'operation', 'unknown');
        running := bal.subscription_credits + held;
        delta := target - op.amount;

        IF delta < 0 THEN
            -- Return the unused part, last drawn first.
            give := -delta;
            kept := '[]'::JSONB;
            FOR n IN REVERSE jsonb_array_length(draws) - 1 .. 0 LOOP
                d := draws->n;
                take := LEAST((d->>'amount')::INTEGER, give);
                IF take > 0 THEN
                    IF d->>'bonusPurchaseId' IS NULL THEN
                        UPDATE credit_balances SET subscription_credits = credit_balances.subscription_credits + take, updated_at = now() WHERE user_id = p_users[i];
                        bal.subscription_credits := bal.subscription_credits + take;
                        live := TRUE;
                    ELSE
                        UPDATE bonus_purchases SET remaining = remaining + take WHERE id = d->>'bonusPurchaseId' AND user_id = p_users[i]
                            RETURNING expires_at > now() INTO live;
                        IF live THEN held := held + take; END IF;
                    END IF;
                    IF live THEN running := running + take; END IF;
                    INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
                        VALUES (gen_random_uuid()::TEXT, p_users[i], take, running, 'refund', op_name,
                                meta || jsonb_build_object('reservationId', p_ids[i], 'reason', 'unused_reservation'),
                                d->>'bonusPurchaseId', p_ids[i], clock_timestamp());
                    give := give - take;
                END IF;
                IF (d->>'amount')::INTEGER - take > 0 THEN
                    kept := jsonb_build_array(jsonb_set(d, '{amount}', to_jsonb((d->>'amount')::INTEGER - take))) || kept;
                END IF;
            END LOOP;
            draws := kept;
        ELSIF delta > 0 THEN
            -- Draw the rest: subscription credits, then spendable bonus purchases; never below zero.
            give := delta;
            take := LEAST(bal.subscription_credits, give);
            IF take > 0 THEN
                UPDATE credit_balances SET subscription_credits = credit_balances.subscription_credits - take, updated_at = now() WHERE user_id = p_users[i];
                bal.subscription_credits := bal.subscription_credits - take;
                running := running - take;
                draws := draws || jsonb_build_array(jsonb_build_object('bonusPurchaseId', NULL, 'amount', take));
                INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
                    VALUES (gen_random_uuid()::TEXT, p_users[i], -take, running, 'usage', op_name, meta, NULL, p_ids[i], clock_timestamp());
                give := give - take;
            END IF;
            IF give > 0 AND (bal.bonus_credits_auto_use OR p_bonus_always) THEN
                FOR purchase IN
                    SELECT bp.id, bp.remaining FROM bonus_purchases bp
                    WHERE bp.user_id = p_users[i] AND bp.remaining > 0 AND bp.expires_at > now()
                    ORDER BY bp.expires_at ASC, bp.created_at ASC, bp.id ASC
                    FOR UPDATE
                LOOP
                    EXIT WHEN give = 0;
                    take := LEAST(purchase.remaining, give);
                    UPDATE bonus_purchases SET remaining = remaining - take WHERE id = purchase.id;
                    held := held - take;
                    running := running - take;
                    draws := draws || jsonb_build_array(jsonb_build_object('bonusPurchaseId', purchase.id, 'amount', take));
                    INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
                        VALUES (gen_random_uuid()::TEXT, p_users[i], -take, running, 'usage', op_name, meta, purchase.id, p_ids[i], clock_timestamp());
                    give := give - take;
                END LOOP;
            END IF;
            uncollected := give;
        END IF;

        UPDATE credit_operations
            SET status = 'settled', amount = target - uncollected, updated_at = now(),
                model = COALESCE(meta->>'model', model),
                cost_micros = p_cost_micros[i],
                details = jsonb_set(jsonb_set(details, '{draws}', draws), '{metadata}', COALESCE(details->'metadata', '{}'::JSONB) || meta)
                          || CASE WHEN uncollected > 0 THEN jsonb_build_object('uncollected', uncollected) ELSE '{}'::JSONB END
            WHERE id = p_ids[i];
        IF p_metadata[i] IS NOT NULL THEN
            UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::JSONB) || p_metadata[i]
                WHERE operation_id = p_ids[i] AND user_id = p_users[i] AND type = 'usage';
        END IF;
        RETURN QUERY SELECT i, 'settled'::TEXT, target - uncollected, bal.subscription_credits, held, bal.bonus_credits_auto_use;
    END LOOP;
END;
$$;
