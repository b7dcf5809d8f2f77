-- The give-back order, written once: credits go back to the buckets a charge drew them from, the last
-- drawn first (so the bonus purchase that expires last is refilled before the one that expires first,
-- and the subscription credits last). Returns p_amount (at most what p_draws holds) under the caller's
-- balance lock and answers
--   returned: one entry per bucket refilled, in that order, {"bonusPurchaseId", "amount", "live"}; live
--             is false for a purchase that expired meanwhile (it gets its credits back, which are not
--             spendable: the expiry job expires them again), so the balance does not count them;
--   kept:     the draws that remain, in their drawing order.
-- Used by a settlement below the amount reserved and by a refund. Writes no ledger rows.
CREATE OR REPLACE FUNCTION give_back_credits(p_user TEXT, p_draws JSONB, p_amount INTEGER, OUT returned JSONB, OUT kept JSONB)
LANGUAGE plpgsql AS $$
DECLARE
    n INTEGER;
    d JSONB;
    take INTEGER;
    give INTEGER := GREATEST(p_amount, 0);
    live BOOLEAN;
BEGIN
    returned := '[]'::JSONB;
    kept := '[]'::JSONB;
    FOR n IN REVERSE jsonb_array_length(p_draws) - 1 .. 0 LOOP
        d := p_draws->n;
        take := LEAST((d->>'amount')::INTEGER, give);
        IF take > 0 THEN
            IF d->>'bonusPurchaseId' IS NULL THEN
                UPDATE credit_balances SET subscription_credits = subscription_credits + take, updated_at = now() WHERE user_id = p_user;
                live := TRUE;
            ELSE
                UPDATE bonus_purchases SET remaining = remaining + take WHERE id = d->>'bonusPurchaseId' AND user_id = p_user
                    RETURNING expires_at > now() INTO live;
                live := COALESCE(live, FALSE);
            END IF;
            returned := returned || jsonb_build_array(jsonb_build_object('bonusPurchaseId', d->'bonusPurchaseId', 'amount', take, 'live', live));
            give := give - take;
        ELSE
            take := 0;
        END IF;
        IF (d->>'amount')::INTEGER - take > 0 THEN
            kept := jsonb_build_array(jsonb_set(d, '{amount}', to_jsonb((d->>'amount')::INTEGER - take))) || kept;
        END IF;
    END LOOP;
END;
$$;
