-- A user's current subscription, the rule's one home (lib/billing/subscriptions/current-subscription.ts
-- and the status read, prisma/functions/user_status.sql, both ask it): the newest of the user's subscriptions
-- whose status still gives the paid tier (p_live: LIVE_STATUSES) and that has not ended (a cancelled
-- one keeps its tier until ends_at), else no row. A single SELECT in SQL: the planner inlines it into
-- the statement that calls it (one index scan on subscriptions (user_id, status)).
CREATE OR REPLACE FUNCTION current_subscription(p_user TEXT, p_now TIMESTAMPTZ, p_live TEXT[]) RETURNS SETOF subscriptions
LANGUAGE sql STABLE AS $$
    SELECT s.* FROM subscriptions s
    WHERE s.user_id = p_user
      AND s.status = ANY (p_live)
      AND NOT (s.status = 'cancelled' AND s.ends_at IS NOT NULL AND s.ends_at <= p_now)
    ORDER BY s.created_at DESC, s.id DESC
    LIMIT 1
$$;
