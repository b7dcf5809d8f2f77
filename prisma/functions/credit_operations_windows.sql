-- Trigger function (AFTER UPDATE OF status on credit_operations, for charges of a member or a key):
-- a reservation counted its amount in the organisation member's day and month windows and in the API
-- key's budget window; when the charge is settled they are corrected to the final amount, when it is
-- refunded the amount is taken back, in the windows the charge belongs to. One function takes the two
-- rows' locks in lock_charge_accounts' order, the member's before the key's (the caller holds the
-- balance row's already): settlements and refunds never deadlock with reservations. An organisation's
-- charge corrects its budget windows on that balance row too (organisation_budget_check).
CREATE OR REPLACE FUNCTION credit_operations_windows() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
    delta INTEGER;
BEGIN
    IF OLD.status <> 'reserved' OR NEW.status = 'reserved' THEN
        RETURN NEW;
    END IF;
    delta := CASE WHEN NEW.status = 'settled' THEN NEW.amount ELSE 0 END - OLD.amount;
    IF NEW.member_id IS NOT NULL THEN
        UPDATE organisation_members SET
            day_spent = CASE WHEN day_start IS NOT NULL AND OLD.created_at >= day_start THEN GREATEST(0, day_spent + delta) ELSE day_spent END,
            month_spent = CASE WHEN month_start IS NOT NULL AND OLD.created_at >= month_start THEN GREATEST(0, month_spent + delta) ELSE month_spent END
        WHERE organisation_id = NEW.user_id AND user_id = NEW.member_id;
    END IF;
    IF EXISTS (SELECT 1 FROM organisations WHERE id = NEW.user_id) THEN
        UPDATE credit_balances SET
            budget_day_spent = CASE WHEN budget_day_start IS NOT NULL AND OLD.created_at >= budget_day_start THEN GREATEST(0, budget_day_spent + delta) ELSE budget_day_spent END,
            budget_month_spent = CASE WHEN budget_month_start IS NOT NULL AND OLD.created_at >= budget_month_start THEN GREATEST(0, budget_month_spent + delta) ELSE budget_month_spent END
        WHERE user_id = NEW.user_id;
    END IF;
    IF NEW.api_key_id IS NOT NULL THEN
        UPDATE api_keys SET window_spent = GREATEST(0, window_spent + delta)
        WHERE id = NEW.api_key_id AND budget_credits IS NOT NULL AND window_start IS NOT NULL AND OLD.created_at >= window_start;
    END IF;
    RETURN NEW;
END;
$$;
