-- A charge the organisation's budgets let through (organisation_budget_check answered 'ok'), counted
-- in its day and month windows on the balance row, in the charge's own statement.
CREATE OR REPLACE FUNCTION organisation_budget_count(p_user TEXT, p_amount INTEGER)
RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
    UPDATE credit_balances SET budget_day_spent = budget_day_spent + p_amount, budget_month_spent = budget_month_spent + p_amount
        WHERE user_id = p_user;
END;
$$;
