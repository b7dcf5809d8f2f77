-- The AI slots asked for within one event-loop turn of one process, taken in one statement
-- (lib/ratelimit/database-slots.ts, group commit). Each item is acquire_ai_slot's decision for its
-- user, in the order given: the caller sorts the items by user, so every group takes the users'
-- advisory locks in one order (no deadlock between instances). Items of one user see each other's
-- slots (the same transaction), so a group never takes more than the cap.
CREATE OR REPLACE FUNCTION acquire_ai_slots(p_users TEXT[], p_slots TEXT[], p_cap INTEGER, p_lease_ms INTEGER, p_instance TEXT, p_lost_after_ms INTEGER)
RETURNS TABLE (item INTEGER, ok BOOLEAN) LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_users, 1), 0) LOOP
        item := i;
        ok := acquire_ai_slot(p_users[i], p_slots[i], p_cap, p_lease_ms, p_instance, p_lost_after_ms);
        RETURN NEXT;
    END LOOP;
END;
$$;
