-- Several reservations in one statement (lib/credits/reserve-statement.ts, group commit): those a
-- process makes within one event-loop turn, or while a statement is being written. Each item is
-- reserve_credits for its account, in the order given: the caller sorts the items by account, so every
-- group takes the balance rows' locks in one order (no deadlock between groups or instances).
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
