-- Whether a free account's calendar month has turned since its last allocation, so the free tier's lazy
-- rollover is due (a paid plan's allocation comes with its payment instead). The rule's one home:
-- reserve_credits answers rollover_due by it, the balance summary (lib/credits/get-credit-summary.ts)
-- and the rollover itself (rolloverFreeAllocationIfDue, lib/credits/apply-monthly-allocation.ts) ask it.
-- No balance row yet counts as due. p_month_start: the current calendar month's start (UTC, from the
-- caller). One SQL expression: the planner inlines it where it is called, so it adds no function call.
CREATE OR REPLACE FUNCTION free_rollover_due(p_tier TEXT, p_reset_at TIMESTAMPTZ, p_month_start TIMESTAMPTZ) RETURNS BOOLEAN
LANGUAGE sql IMMUTABLE AS $$
    SELECT p_tier = 'free' AND (p_reset_at IS NULL OR p_reset_at < p_month_start)
$$;
