-- The draw order, written once: subscription credits first, then (when the account may spend them)
-- bonus purchases, the one that expires first first (then the older, then by id). Takes up to
-- p_amount from the buckets, under the caller's balance lock (p_subscription: the subscription
-- credits it read under that lock), and writes one ledger row per bucket drawn on the operation
-- p_operation_id (which must exist: its rows reference it), each with the balance after it (p_running
-- before the first; one row gets the transaction's time, several rows of one draw increasing times, their
-- order being their story).
-- The rows are the draws: a give-back reads them (charge_draws). Answers
--   draws         [{"bonusPurchaseId": null | "<id>", "amount": n}, ...] in the order taken;
--   subscription  taken from the subscription credits; bonus: taken from bonus purchases;
--   balance       the balance after the last row.
-- Their sum is less than p_amount only when the buckets hold less: reserve_credits checks first and
-- refuses; a settlement records the rest as uncollected. One call does it all: on the embedded
-- database every nested function call costs a charge tens of microseconds (docs/BENCHMARKS.md).
CREATE OR REPLACE FUNCTION draw_credits(p_user TEXT, p_amount INTEGER, p_subscription INTEGER, p_with_bonus BOOLEAN,
                                        p_operation_id TEXT, p_type TEXT, p_operation TEXT, p_metadata JSONB, p_running INTEGER,
                                        OUT draws JSONB, OUT subscription INTEGER, OUT bonus INTEGER, OUT balance INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
    left_over INTEGER := GREATEST(p_amount, 0);
    take INTEGER;
    purchase RECORD;
BEGIN
    draws := '[]'::JSONB;
    subscription := 0;
    bonus := 0;
    balance := p_running;
    take := LEAST(GREATEST(p_subscription, 0), left_over);
    IF take > 0 THEN
        UPDATE credit_balances SET subscription_credits = subscription_credits - take, updated_at = now() WHERE user_id = p_user;
        draws := jsonb_build_array(jsonb_build_object('bonusPurchaseId', NULL, 'amount', take));
        subscription := take;
        left_over := left_over - take;
        balance := balance - take;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (gen_random_uuid()::TEXT, p_user, -take, balance, p_type, p_operation, p_metadata, NULL, p_operation_id,
                    CASE WHEN left_over = 0 THEN now() ELSE clock_timestamp() END);
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
            bonus := bonus + take;
            left_over := left_over - take;
            balance := balance - take;
            INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
                VALUES (gen_random_uuid()::TEXT, p_user, -take, balance, p_type, p_operation, p_metadata, purchase.id, p_operation_id,
                        CASE WHEN left_over = 0 AND subscription = 0 AND jsonb_array_length(draws) = 1 THEN now() ELSE clock_timestamp() END);
        END LOOP;
    END IF;
END;
$$;
