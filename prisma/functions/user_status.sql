-- The status read of GET /api/user/status (lib/account/user-status.ts): the user's row and their current
-- subscription by its one rule (current_subscription), in one statement. A PL/pgSQL function keeps
-- its query's plan between calls: on the embedded database, planning the read anew each time (the
-- tables' and indexes' sizes looked up on disk) cost more than the read itself.
CREATE OR REPLACE FUNCTION user_status(p_user TEXT, p_now TIMESTAMPTZ, p_live TEXT[])
RETURNS TABLE (billing_period TEXT, locked BOOLEAN, status TEXT, tier TEXT, plan_period TEXT, payment_failed BOOLEAN)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT u.billing_period, u.locked_at IS NOT NULL, s.status, s.tier, s.billing_period, s.payment_failed_at IS NOT NULL
    FROM users u LEFT JOIN LATERAL current_subscription(u.id, p_now, p_live) s ON true
    WHERE u.id = p_user;
END;
$$;
