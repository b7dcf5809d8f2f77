-- A charge to an organisation's wallet by one of its members (with one of its keys, or acting as the
-- organisation in a session). One statement: the balance row, the member's row and (with a key) the
-- key's row locked in that order (lock_charge_accounts); the member's day and month windows roll over;
-- the charge is refused when the person is no longer a member ('no_member'), when the member's
-- reserved and settled spend plus this one would pass a cap ('over_cap'), or when the key's budget
-- would ('over_budget'); else reserved (reserve_credits, or reserve_credits_for_key with a key) and
-- counted in both windows, the member named on the charge. In-flight reservations count, so concurrent
-- calls never pass a cap; the settlement or refund corrects the windows (credit_operations_windows).
-- The organisation's budgets are checked and counted too ('over_org_budget', in the cap_* columns;
-- with a key, by reserve_credits_for_key).
CREATE OR REPLACE FUNCTION reserve_credits_for_member(
    p_member TEXT,
    p_key_id TEXT,
    p_user TEXT,
    p_amount INTEGER,
    p_month_start TIMESTAMPTZ,
    p_id TEXT,
    p_operation TEXT,
    p_metadata JSONB,
    p_key TEXT,
    p_bonus_always BOOLEAN,
    p_instance TEXT
) RETURNS TABLE (outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT, key_spent INTEGER, key_budget INTEGER, key_period TEXT, key_window_start TIMESTAMPTZ,
                  cap_period TEXT, cap_spent INTEGER, cap_credits INTEGER)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    m RECORD;
    r RECORD;
    b RECORD;
    day_begin TIMESTAMPTZ := api_key_window_start('day', now());
    month_begin TIMESTAMPTZ := api_key_window_start('month', now());
BEGIN
    PERFORM lock_charge_accounts(p_user, p_member, p_key_id);
    SELECT om.daily_cap, om.monthly_cap, om.day_start, om.day_spent, om.month_start, om.month_spent INTO m
        FROM organisation_members om WHERE om.organisation_id = p_user AND om.user_id = p_member;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_member'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TIMESTAMPTZ, NULL::TEXT, NULL::INTEGER, NULL::INTEGER;
        RETURN;
    END IF;
    IF m.day_start IS DISTINCT FROM day_begin OR m.month_start IS DISTINCT FROM month_begin THEN
        IF m.day_start IS DISTINCT FROM day_begin THEN m.day_spent := 0; END IF;
        IF m.month_start IS DISTINCT FROM month_begin THEN m.month_spent := 0; END IF;
        UPDATE organisation_members SET day_start = day_begin, day_spent = m.day_spent, month_start = month_begin, month_spent = m.month_spent
            WHERE organisation_id = p_user AND user_id = p_member;
    END IF;
    IF m.daily_cap IS NOT NULL AND m.day_spent + p_amount > m.daily_cap THEN
        RETURN QUERY SELECT 'over_cap'::TEXT, NULL::TEXT, p_amount, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TIMESTAMPTZ, 'day'::TEXT, m.day_spent, m.daily_cap;
        RETURN;
    END IF;
    IF m.monthly_cap IS NOT NULL AND m.month_spent + p_amount > m.monthly_cap THEN
        RETURN QUERY SELECT 'over_cap'::TEXT, NULL::TEXT, p_amount, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TIMESTAMPTZ, 'month'::TEXT, m.month_spent, m.monthly_cap;
        RETURN;
    END IF;
    IF p_key_id IS NULL THEN
        SELECT * INTO b FROM organisation_budget_check(p_user, p_amount);
        IF b.outcome = 'over' THEN
            RETURN QUERY SELECT 'over_org_budget'::TEXT, NULL::TEXT, p_amount, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
                NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TIMESTAMPTZ, b.period, b.spent, b.budget;
            RETURN;
        END IF;
    END IF;
    IF p_key_id IS NOT NULL THEN
        SELECT * INTO r FROM reserve_credits_for_key(p_key_id, p_user, p_amount, p_month_start, p_id, p_operation, p_metadata, p_bonus_always, p_instance);
    ELSE
        SELECT *, NULL::INTEGER AS key_spent, NULL::INTEGER AS key_budget, NULL::TEXT AS key_period, NULL::TIMESTAMPTZ AS key_window_start INTO r
            FROM reserve_credits(p_user, p_amount, p_month_start, p_id, p_operation, p_metadata, p_key, p_bonus_always, p_instance);
    END IF;
    IF r.outcome = 'charged' THEN
        UPDATE organisation_members SET day_spent = day_spent + p_amount, month_spent = month_spent + p_amount
            WHERE organisation_id = p_user AND user_id = p_member;
        UPDATE credit_operations SET member_id = p_member WHERE id = p_id;
        -- Nested, not AND: PL/pgSQL evaluates both sides, and b is unassigned when the key's statement checked the budgets.
        IF p_key_id IS NULL THEN
            IF b.outcome = 'ok' THEN
                PERFORM organisation_budget_count(p_user, p_amount);
            END IF;
        END IF;
    END IF;
    RETURN QUERY SELECT r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use, r.monthly_allocation, r.reset_at, r.tier,
        r.key_spent, r.key_budget, r.key_period, r.key_window_start, NULL::TEXT, NULL::INTEGER, NULL::INTEGER;
END;
$$;
