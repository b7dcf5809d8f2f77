-- Reservations that take their caller's AI slot in the same statement (lib/ratelimit/ai-slot): one
-- round trip before the provider is called instead of two (the slot, then the charge). Per item, in
-- the order given (the caller sorts the items by account, which for these charges is the person whose
-- slot it is: every group takes the slots' advisory locks, then the balance rows, in one order):
--   * with a slot id, acquire_ai_slot decides first; the cap reached answers 'no_slot' and nothing is
--     reserved;
--   * then reserve_credits; a reservation that did not charge (insufficient credits, a rollover due,
--     ...) gives its slot back in the same transaction, so a refused call never holds one.
-- Without a slot id an item is reserve_credits alone. Before any item, the slots the calling process
-- gave back since its last statement (p_released) are deleted: its own count is exact when it counts,
-- and a charged call's slot costs no statement of its own on the way out.
CREATE OR REPLACE FUNCTION reserve_credits_holding_slots(
    p_users TEXT[],
    p_amounts INTEGER[],
    p_month_start TIMESTAMPTZ,
    p_ids TEXT[],
    p_operations TEXT[],
    p_metadata JSONB[],
    p_keys TEXT[],
    p_bonus_always BOOLEAN,
    p_instance TEXT,
    p_slot_users TEXT[],
    p_slots TEXT[],
    p_slot_cap INTEGER,
    p_slot_lease_ms INTEGER,
    p_lost_after_ms INTEGER,
    p_released TEXT[]
) RETURNS TABLE (item INTEGER, outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT)
LANGUAGE plpgsql AS $$
DECLARE
    i INTEGER;
    r RECORD;
BEGIN
    IF COALESCE(array_length(p_released, 1), 0) > 0 THEN
        DELETE FROM ai_request_slots s WHERE s.id = ANY(p_released);
    END IF;
    FOR i IN 1 .. COALESCE(array_length(p_users, 1), 0) LOOP
        IF p_slots[i] IS NOT NULL
           AND NOT acquire_ai_slot(p_slot_users[i], p_slots[i], p_slot_cap, p_slot_lease_ms, p_instance, p_lost_after_ms) THEN
            RETURN QUERY SELECT i, 'no_slot'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN,
                NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT;
            CONTINUE;
        END IF;
        SELECT * INTO r
            FROM reserve_credits(p_users[i], p_amounts[i], p_month_start, p_ids[i], p_operations[i], p_metadata[i], p_keys[i], p_bonus_always, p_instance) x;
        IF p_slots[i] IS NOT NULL AND r.outcome NOT IN ('charged', 'existing') THEN
            DELETE FROM ai_request_slots s WHERE s.id = p_slots[i];
        END IF;
        RETURN QUERY SELECT i, r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use,
            r.monthly_allocation, r.reset_at, r.tier;
    END LOOP;
END;
$$;
