-- A dispute (a chargeback) on a payment (lib/billing/receipts/dispute-payment.ts), under the balance
-- lock, then the payment's row, as take_back_payment:
--   open  freezes the unspent credits the disputed amount bought (in proportion, as a refund would
--         take them): they leave the purchase (or the current allocation) into payments.credits_held,
--         one `adjustment` ledger row (operation payment_disputed). Nothing becomes debt yet: the bank
--         has not decided. A second open changes nothing.
--   won   gives the frozen credits back where they came from (the purchase while it has not expired,
--         the allocation while it is the current one), one ledger row (dispute_won).
--   lost  the frozen credits count as taken back, then the payment is taken back as a refund of the
--         disputed amount (take_back_payment): the rest from unspent credits, what was spent as debt.
-- A close without an open (events out of order) opens first. Closing twice changes nothing.
-- Outcomes: not_found | unchanged | held | released | taken_back.
CREATE OR REPLACE FUNCTION dispute_payment(p_payment TEXT, p_state TEXT, p_amount INTEGER, p_at TIMESTAMPTZ)
RETURNS TABLE (outcome TEXT, held INTEGER, taken INTEGER, owed INTEGER, balance INTEGER)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    owner TEXT;
    bal RECORD;
    pay RECORD;
    purchase_id TEXT;
    purchase_remaining INTEGER;
    purchase_expires TIMESTAMPTZ;
    disputed INTEGER;
    target INTEGER;
    hold INTEGER := 0;
    back INTEGER := 0;
    running INTEGER;
    bonus_held INTEGER;
    meta JSONB;
    op_id TEXT := gen_random_uuid()::TEXT;
    tb RECORD;
BEGIN
    SELECT p.user_id INTO owner FROM payments p WHERE p.id = p_payment;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::TEXT, 0, 0, 0, NULL::INTEGER;
        RETURN;
    END IF;
    SELECT cb.subscription_credits, cb.debt, cb.cycle INTO bal FROM credit_balances cb WHERE cb.user_id = owner FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO credit_balances (user_id, subscription_credits, monthly_allocation, updated_at) VALUES (owner, 0, 0, now())
            ON CONFLICT (user_id) DO NOTHING;
        SELECT cb.subscription_credits, cb.debt, cb.cycle INTO bal FROM credit_balances cb WHERE cb.user_id = owner FOR UPDATE;
    END IF;
    SELECT * INTO pay FROM payments p WHERE p.id = p_payment FOR UPDATE;
    SELECT h.credits INTO bonus_held FROM held_bonus(owner) h;
    running := bal.subscription_credits + bonus_held - bal.debt;
    IF pay.dispute_status IN ('won', 'lost') THEN
        RETURN QUERY SELECT 'unchanged'::TEXT, 0, 0, 0, running;
        RETURN;
    END IF;
    disputed := LEAST(GREATEST(COALESCE(NULLIF(p_amount, 0), pay.amount), 0), pay.amount);
    meta := jsonb_build_object('paymentId', pay.id, 'provider', pay.provider, 'providerPaymentId', pay.provider_payment_id,
                               'disputedAmount', disputed, 'amount', pay.amount, 'currency', pay.currency);
    IF pay.bonus_purchase_id IS NOT NULL THEN
        SELECT bp.id, bp.remaining, bp.expires_at INTO purchase_id, purchase_remaining, purchase_expires
            FROM bonus_purchases bp WHERE bp.id = pay.bonus_purchase_id FOR UPDATE;
    END IF;

    -- Open (also the first step of a close that arrives without its open).
    IF pay.dispute_status IS NULL THEN
        target := CASE WHEN pay.amount > 0 THEN (pay.credits::BIGINT * disputed / pay.amount)::INTEGER ELSE pay.credits END;
        hold := GREATEST(LEAST(target, pay.credits - pay.credits_taken_back), 0);
        IF pay.bonus_purchase_id IS NOT NULL AND purchase_id IS NOT NULL THEN
            hold := CASE WHEN purchase_expires > now() THEN LEAST(hold, purchase_remaining) ELSE 0 END;
            UPDATE bonus_purchases SET remaining = remaining - hold WHERE id = purchase_id;
        ELSIF pay.allocation_cycle IS NOT NULL AND pay.allocation_cycle = bal.cycle THEN
            hold := LEAST(hold, GREATEST(bal.subscription_credits, 0));
            UPDATE credit_balances SET subscription_credits = subscription_credits - hold, updated_at = now() WHERE user_id = owner;
        ELSE
            hold := 0;
        END IF;
        UPDATE payments SET dispute_status = 'open', disputed_amount = disputed, credits_held = hold, status = 'disputed',
                            disputed_at = p_at, updated_at = now() WHERE id = p_payment;
        IF hold > 0 THEN
            running := running - hold;
            INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
                VALUES (op_id, owner, 'dispute_hold:' || pay.id, 'adjustment', -hold, 'applied', meta || jsonb_build_object('reason', 'payment_disputed'), now(), now());
            INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
                VALUES (gen_random_uuid()::TEXT, owner, -hold, running, 'adjustment', 'payment_disputed', meta, purchase_id, op_id, now());
        END IF;
        IF p_state = 'open' THEN
            RETURN QUERY SELECT 'held'::TEXT, hold, 0, 0, running;
            RETURN;
        END IF;
        SELECT * INTO pay FROM payments p WHERE p.id = p_payment;
        op_id := gen_random_uuid()::TEXT;
    END IF;
    IF p_state = 'open' THEN
        RETURN QUERY SELECT 'unchanged'::TEXT, 0, 0, 0, running;
        RETURN;
    END IF;

    IF p_state = 'won' THEN
        back := pay.credits_held;
        IF back > 0 AND pay.bonus_purchase_id IS NOT NULL AND purchase_id IS NOT NULL THEN
            back := CASE WHEN purchase_expires > now() THEN back ELSE 0 END;
            UPDATE bonus_purchases SET remaining = remaining + back WHERE id = purchase_id;
        ELSIF back > 0 AND pay.allocation_cycle IS NOT NULL AND pay.allocation_cycle = bal.cycle THEN
            UPDATE credit_balances SET subscription_credits = subscription_credits + back, updated_at = now() WHERE user_id = owner;
        ELSE
            back := 0;
        END IF;
        UPDATE payments SET dispute_status = 'won', credits_held = 0,
                            status = CASE WHEN refunded_amount >= amount AND refunded_amount > 0 THEN 'refunded'
                                          WHEN refunded_amount > 0 THEN 'partially_refunded' ELSE 'paid' END,
                            updated_at = now() WHERE id = p_payment;
        IF back > 0 THEN
            running := running + back;
            INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
                VALUES (op_id, owner, 'dispute_won:' || pay.id, 'adjustment', back, 'applied', meta || jsonb_build_object('reason', 'dispute_won'), now(), now());
            INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
                VALUES (gen_random_uuid()::TEXT, owner, back, running, 'adjustment', 'dispute_won', meta, purchase_id, op_id, clock_timestamp());
        END IF;
        RETURN QUERY SELECT 'released'::TEXT, back, 0, 0, running;
        RETURN;
    END IF;

    -- Lost: the frozen credits are taken back for good; the rest as a refund of the disputed amount.
    UPDATE payments SET credits_taken_back = credits_taken_back + credits_held, credits_held = 0, dispute_status = 'lost', updated_at = now()
        WHERE id = p_payment;
    IF pay.bonus_purchase_id IS NOT NULL AND purchase_id IS NOT NULL THEN
        UPDATE bonus_purchases SET taken_back = taken_back + pay.credits_held WHERE id = purchase_id;
    END IF;
    SELECT * INTO tb FROM take_back_payment(p_payment, LEAST(pay.refunded_amount + pay.disputed_amount, pay.amount), p_at);
    UPDATE payments SET status = 'charged_back', updated_at = now() WHERE id = p_payment;
    RETURN QUERY SELECT 'taken_back'::TEXT, pay.credits_held, tb.taken, tb.owed, COALESCE(tb.balance, running);
END;
$$;
