-- Settlements of reserved charges at their final amounts (lib/credits/settle-reservation.ts), item by
-- item in the order given (the caller sorts by account): each takes the balance row's lock first, then
-- its charge's row. A final amount below the reserved one gives the rest back (give_back_credits, the
-- last drawn first, `refund` ledger rows with reason unused_reservation); above it draws the difference
-- (draw_credits, the draw order, `usage` rows), never below zero: what the buckets cannot pay is
-- recorded on the charge as uncollected. The charge becomes `settled` with its usage and provider cost
-- (the status change corrects the member's and key's windows: credit_operations_windows), and its usage
-- rows get the usage. An item not `reserved` (settled or refunded before, another account's, not a
-- charge) settles nothing ('not_reserved'). Each row is found by its own key (the charge by its id, its
-- ledger rows by their operation id): with the account or the kind in the statement, the embedded
-- database's planner (no statistics) read every charge, or every ledger row of the account.
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
    moved RECORD;
    target INTEGER;
    delta INTEGER;
    held INTEGER;
    sub INTEGER;
    uncollected INTEGER;
    meta JSONB;
    op_name TEXT;
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_ids, 1), 0) LOOP
        uncollected := 0;
        meta := COALESCE(p_metadata[i], '{}'::JSONB);
        SELECT cb.subscription_credits, cb.debt, u.bonus_credits_auto_use INTO bal
            FROM credit_balances cb JOIN users u ON u.id = cb.user_id
            WHERE cb.user_id = p_users[i]
            FOR UPDATE OF cb;
        IF NOT FOUND THEN
            RETURN QUERY SELECT i, 'not_reserved'::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN;
            CONTINUE;
        END IF;
        SELECT o.id, o.amount, o.status, o.details, o.user_id, o.kind INTO op FROM credit_operations o
            WHERE o.id = p_ids[i] FOR UPDATE;
        SELECT h.credits INTO held FROM held_bonus(p_users[i]) h;
        IF op.id IS NULL OR op.user_id <> p_users[i] OR op.kind <> 'charge' OR op.status <> 'reserved' THEN
            -- A charge made before every charge had its row (its one ledger row carries the id): the
            -- metadata is recorded, the amount stands.
            IF op.id IS NULL AND p_metadata[i] IS NOT NULL THEN
                UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::JSONB) || p_metadata[i]
                    WHERE id = p_ids[i] AND user_id = p_users[i] AND type = 'usage' AND operation_id IS NULL;
            END IF;
            RETURN QUERY SELECT i, 'not_reserved'::TEXT, NULL::INTEGER, bal.subscription_credits, held, bal.bonus_credits_auto_use;
            CONTINUE;
        END IF;
        target := GREATEST(COALESCE(p_amounts[i], op.amount), 0);
        op_name := COALESCE(op.details->>'operation', 'unknown');
        delta := target - op.amount;
        sub := bal.subscription_credits;

        IF delta < 0 THEN
            SELECT * INTO moved FROM give_back_credits(p_users[i], charge_draws(p_ids[i], p_users[i]), -delta,
                p_ids[i], 'refund', op_name, meta || jsonb_build_object('reservationId', p_ids[i], 'reason', 'unused_reservation'), sub + held - bal.debt);
            sub := sub + moved.subscription;
            held := held + moved.bonus;
        ELSIF delta > 0 THEN
            SELECT * INTO moved FROM draw_credits(p_users[i], delta, sub, bal.bonus_credits_auto_use OR p_bonus_always,
                p_ids[i], 'usage', op_name, meta, sub + held - bal.debt);
            sub := sub - moved.subscription;
            held := held - moved.bonus;
            uncollected := delta - moved.subscription - moved.bonus;
        END IF;

        UPDATE credit_operations
            SET status = 'settled', amount = target - uncollected, updated_at = now(),
                model = COALESCE(meta->>'model', model),
                cost_micros = p_cost_micros[i],
                details = jsonb_set(details - 'draws', '{metadata}', COALESCE(details->'metadata', '{}'::JSONB) || meta)
                          || CASE WHEN uncollected > 0 THEN jsonb_build_object('uncollected', uncollected) ELSE '{}'::JSONB END
            WHERE id = p_ids[i];
        IF p_metadata[i] IS NOT NULL THEN
            UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::JSONB) || p_metadata[i]
                WHERE operation_id = p_ids[i] AND type = 'usage';
        END IF;
        RETURN QUERY SELECT i, 'settled'::TEXT, target - uncollected, sub, held, bal.bonus_credits_auto_use;
    END LOOP;
END;
$$;
