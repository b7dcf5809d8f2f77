-- An organisation's budgets at a charge (reserve_credits_for_member, reserve_credits_for_key), under
-- the wallet's balance row lock the caller already holds: 'person' for an account that is no
-- organisation (nothing is checked or counted); else its day and month windows on the balance row
-- roll over when a new UTC day or calendar month began, and 'over' (with the period, what it spent
-- and its budget) when this charge would pass its daily or monthly budget, else 'ok'. Every charge of
-- an organisation is counted (organisation_budget_count), budget or not, so a budget set in the middle
-- of a day already knows that day's spend; settlements and refunds correct it (credit_operations_windows).
CREATE OR REPLACE FUNCTION organisation_budget_check(p_user TEXT, p_amount INTEGER)
RETURNS TABLE (outcome TEXT, period TEXT, spent INTEGER, budget INTEGER)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    o RECORD;
    w RECORD;
    day_begin TIMESTAMPTZ := api_key_window_start('day', now());
    month_begin TIMESTAMPTZ := api_key_window_start('month', now());
BEGIN
    SELECT org.daily_budget, org.monthly_budget INTO o FROM organisations org WHERE org.id = p_user;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'person'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER;
        RETURN;
    END IF;
    SELECT cb.budget_day_start, cb.budget_day_spent, cb.budget_month_start, cb.budget_month_spent INTO w
        FROM credit_balances cb WHERE cb.user_id = p_user;
    IF w.budget_day_start IS DISTINCT FROM day_begin OR w.budget_month_start IS DISTINCT FROM month_begin THEN
        IF w.budget_day_start IS DISTINCT FROM day_begin THEN w.budget_day_spent := 0; END IF;
        IF w.budget_month_start IS DISTINCT FROM month_begin THEN w.budget_month_spent := 0; END IF;
        UPDATE credit_balances SET budget_day_start = day_begin, budget_day_spent = w.budget_day_spent,
                                   budget_month_start = month_begin, budget_month_spent = w.budget_month_spent
            WHERE user_id = p_user;
    END IF;
    IF o.daily_budget IS NOT NULL AND w.budget_day_spent + p_amount > o.daily_budget THEN
        RETURN QUERY SELECT 'over'::TEXT, 'day'::TEXT, w.budget_day_spent, o.daily_budget;
        RETURN;
    END IF;
    IF o.monthly_budget IS NOT NULL AND w.budget_month_spent + p_amount > o.monthly_budget THEN
        RETURN QUERY SELECT 'over'::TEXT, 'month'::TEXT, w.budget_month_spent, o.monthly_budget;
        RETURN;
    END IF;
    RETURN QUERY SELECT 'ok'::TEXT, NULL::TEXT, w.budget_day_spent, NULL::INTEGER;
END;
$$;
