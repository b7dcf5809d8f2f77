-- settle_charges: as in migration 20261126000100, except that every row is found by its own key
-- alone: the charge by its id (its user and kind checked on the row read), its usage ledger rows by
-- their operation id. With `AND kind = 'charge'` or `AND user_id = ...` in the statement, the planner
-- of the embedded database (which keeps no statistics: no autovacuum) combined the primary key with
-- the (kind, created_at) or (user_id, created_at) index and read every charge, or every ledger row of
-- the user, on each settlement: its time grew with the history (0.7 ms per settlement at 4,000
-- charges, 7.5 ms at 24,000, and the charged chat ÷ noop ratio of bench:check fell from 0.74 to 0.3).
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
    mine BOOLEAN;
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
        SELECT o.id, o.amount, o.status, o.details, o.user_id, o.kind INTO op FROM credit_operations o
            WHERE o.id = p_ids[i] FOR UPDATE;
        mine := op.id IS NOT NULL AND op.user_id = p_users[i] AND op.kind = 'charge';
        SELECT COALESCE(SUM(bp.remaining), 0)::INTEGER INTO held
            FROM bonus_purchases bp WHERE bp.user_id = p_users[i] AND bp.remaining > 0 AND bp.expires_at > now();
        IF NOT mine OR op.status <> 'reserved' THEN
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
                WHERE operation_id = p_ids[i] AND type = 'usage';
        END IF;
        RETURN QUERY SELECT i, 'settled'::TEXT, target - uncollected, bal.subscription_credits, held, bal.bonus_credits_auto_use;
    END LOOP;
END;
$$;
