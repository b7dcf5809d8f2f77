-- The give-back order, written once: credits go back to the buckets a charge drew them from, the last
-- drawn first (so the bonus purchase that expires last is refilled before the one that expires first,
-- and the subscription credits last). Returns p_amount (at most what p_draws holds: the charge's draws,
-- charge_draws) under the caller's balance lock, and writes one ledger row per bucket refilled on the
-- operation p_operation_id, each with the balance after it (p_running before the first). A purchase
-- that expired meanwhile gets its credits back, which are not spendable (the expiry job expires them
-- again): its row is on the ledger but leaves the balance as it was. A purchase a refund or a lost
-- dispute took back holds at most what was not taken back: credits given back beyond that were
-- counted as spent when it was taken back, so they pay the debt that made of them instead (pay_debt);
-- the balance (buckets less debt) rises by the same amount either way. Answers
--   returned      one entry per bucket refilled, in that order, {"bonusPurchaseId", "amount", "live"};
--   subscription  returned to the subscription credits; bonus: returned to live bonus purchases;
--   balance       the balance after the last row.
CREATE OR REPLACE FUNCTION give_back_credits(p_user TEXT, p_draws JSONB, p_amount INTEGER,
                                             p_operation_id TEXT, p_type TEXT, p_operation TEXT, p_metadata JSONB, p_running INTEGER,
                                             OUT returned JSONB, OUT subscription INTEGER, OUT bonus INTEGER, OUT balance INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
    n INTEGER;
    d JSONB;
    take INTEGER;
    give INTEGER := GREATEST(p_amount, 0);
    live BOOLEAN;
    excess INTEGER;
    rows_written INTEGER := 0;
BEGIN
    returned := '[]'::JSONB;
    subscription := 0;
    bonus := 0;
    balance := p_running;
    FOR n IN REVERSE jsonb_array_length(p_draws) - 1 .. 0 LOOP
        EXIT WHEN give = 0;
        d := p_draws->n;
        take := LEAST((d->>'amount')::INTEGER, give);
        CONTINUE WHEN take <= 0;
        IF d->>'bonusPurchaseId' IS NULL THEN
            UPDATE credit_balances SET subscription_credits = subscription_credits + take, updated_at = now() WHERE user_id = p_user;
            live := TRUE;
            subscription := subscription + take;
        ELSE
            UPDATE bonus_purchases SET remaining = remaining + take WHERE id = d->>'bonusPurchaseId' AND user_id = p_user
                RETURNING expires_at > now(), LEAST(GREATEST(remaining - (credits - taken_back), 0), take) INTO live, excess;
            live := COALESCE(live, FALSE);
            IF live AND excess > 0 THEN
                excess := pay_debt(p_user, excess);
                IF excess > 0 THEN
                    UPDATE bonus_purchases SET remaining = remaining - excess WHERE id = d->>'bonusPurchaseId';
                END IF;
            END IF;
            IF live THEN
                bonus := bonus + take;
            END IF;
        END IF;
        IF live THEN
            balance := balance + take;
        END IF;
        give := give - take;
        rows_written := rows_written + 1;
        returned := returned || jsonb_build_array(jsonb_build_object('bonusPurchaseId', d->'bonusPurchaseId', 'amount', take, 'live', live));
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (gen_random_uuid()::TEXT, p_user, take, balance, p_type, p_operation, p_metadata, d->>'bonusPurchaseId', p_operation_id,
                    CASE WHEN give = 0 AND rows_written = 1 THEN now() ELSE clock_timestamp() END);
    END LOOP;
END;
$$;
