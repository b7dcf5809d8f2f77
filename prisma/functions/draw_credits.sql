-- The draw order, written once: subscription credits first, then (when the account may spend them)
-- bonus purchases, the one that expires first first (then the older, then by id). Takes up to
-- p_amount from the buckets, under the caller's balance lock (p_subscription: the subscription
-- credits it read under that lock), and answers what it took, one draw per bucket:
-- [{"bonusPurchaseId": null | "<id>", "amount": n}, ...]. Their sum is less than p_amount only when the
-- buckets hold less: reserve_credits checks first and refuses; a settlement records the rest as
-- uncollected. Writes no ledger rows (insert_credit_rows does, once the operation's row exists).
CREATE OR REPLACE FUNCTION draw_credits(p_user TEXT, p_amount INTEGER, p_subscription INTEGER, p_with_bonus BOOLEAN)
RETURNS JSONB LANGUAGE plpgsql AS $$
DECLARE
    left_over INTEGER := GREATEST(p_amount, 0);
    take INTEGER;
    purchase RECORD;
    draws JSONB := '[]'::JSONB;
BEGIN
    take := LEAST(GREATEST(p_subscription, 0), left_over);
    IF take > 0 THEN
        UPDATE credit_balances SET subscription_credits = subscription_credits - take, updated_at = now() WHERE user_id = p_user;
        draws := draws || jsonb_build_array(jsonb_build_object('bonusPurchaseId', NULL, 'amount', take));
        left_over := left_over - take;
    END IF;
    IF left_over > 0 AND p_with_bonus THEN
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
    RETURN draws;
END;
$$;
