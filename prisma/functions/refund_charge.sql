-- The refund of a reserved charge whose work failed before the provider billed anything
-- (lib/credits/refund-reservation.ts): under the balance row's lock, then the charge's, a charge still
-- `reserved` becomes `refunded` (the member's and key's windows give the amount back:
-- credit_operations_windows) and its credits go back to the buckets they came from
-- (give_back_credits: the last drawn first), with `refund` ledger rows on a refund operation keyed
-- `refund:<charge id>`. A charge settled (its answer went out) or refunded before is left as it is
-- ('not_reserved'), so a refund racing a settlement never returns credits twice; another account's
-- charge, or no charge, is 'not_found'. Answers the buckets after it.
CREATE OR REPLACE FUNCTION refund_charge(p_id TEXT, p_user TEXT, p_reason TEXT)
RETURNS TABLE (outcome TEXT, refunded INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    bal RECORD;
    op RECORD;
    legacy RECORD;
    back RECORD;
    total INTEGER;
    draws JSONB;
    op_name TEXT;
    meta JSONB;
    held INTEGER;
    refund_id TEXT := gen_random_uuid()::TEXT;
BEGIN
    SELECT cb.subscription_credits, cb.debt, u.bonus_credits_auto_use INTO bal
        FROM credit_balances cb JOIN users u ON u.id = cb.user_id
        WHERE cb.user_id = p_user
        FOR UPDATE OF cb;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::TEXT, 0, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN;
        RETURN;
    END IF;
    SELECT o.id, o.amount, o.status, o.details, o.user_id, o.kind INTO op FROM credit_operations o WHERE o.id = p_id FOR UPDATE;
    IF op.id IS NOT NULL THEN
        IF op.user_id <> p_user OR op.kind <> 'charge' THEN
            RETURN QUERY SELECT 'not_found'::TEXT, 0, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN;
            RETURN;
        END IF;
        total := op.amount;
        draws := charge_draws(p_id, p_user);
        op_name := COALESCE(op.details->>'operation', 'unknown');
        meta := COALESCE(op.details->'metadata', '{}'::JSONB);
    ELSE
        -- A charge made before every charge had its row: its one usage ledger row carries the id.
        SELECT ct.amount, ct.operation, ct.metadata, ct.bonus_purchase_id, ct.user_id, ct.type, ct.operation_id INTO legacy
            FROM credit_transactions ct WHERE ct.id = p_id;
        IF NOT FOUND OR legacy.user_id <> p_user OR legacy.type <> 'usage' OR legacy.operation_id IS NOT NULL THEN
            RETURN QUERY SELECT 'not_found'::TEXT, 0, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN;
            RETURN;
        END IF;
        total := -legacy.amount;
        draws := jsonb_build_array(jsonb_build_object('bonusPurchaseId', legacy.bonus_purchase_id, 'amount', total));
        op_name := legacy.operation;
        meta := CASE WHEN jsonb_typeof(legacy.metadata) = 'object' THEN legacy.metadata ELSE '{}'::JSONB END;
    END IF;
    SELECT h.credits INTO held FROM held_bonus(p_user) h;
    IF op.id IS NOT NULL AND op.status <> 'reserved' THEN
        RETURN QUERY SELECT 'not_reserved'::TEXT, 0, bal.subscription_credits, held, bal.bonus_credits_auto_use;
        RETURN;
    END IF;
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
        VALUES (refund_id, p_user, 'refund:' || p_id, 'refund', total, 'applied',
                jsonb_build_object('reservationId', p_id, 'reason', p_reason, 'draws', '[]'::JSONB), now(), now())
        ON CONFLICT (idempotency_key) DO NOTHING;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_reserved'::TEXT, 0, bal.subscription_credits, held, bal.bonus_credits_auto_use;
        RETURN;
    END IF;
    IF op.id IS NOT NULL THEN
        UPDATE credit_operations SET status = 'refunded', updated_at = now() WHERE id = p_id;
    END IF;
    IF total = 0 THEN
        RETURN QUERY SELECT 'refunded'::TEXT, 0, bal.subscription_credits, held, bal.bonus_credits_auto_use;
        RETURN;
    END IF;
    SELECT * INTO back FROM give_back_credits(p_user, draws, total, refund_id, 'refund', op_name,
        meta || jsonb_build_object('reservationId', p_id) || CASE WHEN p_reason IS NULL THEN '{}'::JSONB ELSE jsonb_build_object('reason', p_reason) END,
        bal.subscription_credits + held - bal.debt);
    UPDATE credit_operations SET details = jsonb_set(details, '{draws}', back.returned) WHERE id = refund_id;
    RETURN QUERY SELECT 'refunded'::TEXT, total, bal.subscription_credits + back.subscription, held + back.bonus, bal.bonus_credits_auto_use;
END;
$$;
