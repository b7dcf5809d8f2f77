-- An account's balances as GET /api/ai/usage, the organisation page and auto-recharge's settings read them
-- (lib/credits/get-credit-summary.ts): the tier, bonus auto-use, the subscription credits, the last
-- allocation and its time, the debt, and the bonus credits held (held_bonus). A PL/pgSQL function keeps its
-- query's plan between calls: on the embedded database, planning it anew at every read (the tables'
-- and indexes' sizes looked up on disk) cost more than the read itself.
CREATE OR REPLACE FUNCTION credit_summary(p_user TEXT)
RETURNS TABLE (tier TEXT, auto_use BOOLEAN, sub INTEGER, allocation INTEGER, reset_at TIMESTAMPTZ, debt INTEGER, bonus INTEGER)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT u.tier, u.bonus_credits_auto_use, b.subscription_credits, b.monthly_allocation, b.reset_at::TIMESTAMPTZ, b.debt,
        (SELECT h.credits FROM held_bonus(u.id) h)
    FROM users u LEFT JOIN credit_balances b ON b.user_id = u.id
    WHERE u.id = p_user;
END;
$$;
