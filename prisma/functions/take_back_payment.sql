-- A refund takes back what the payment bought (lib/billing/refunds/take-back-payment.ts), in
-- proportion to the amount refunded so far: floor(credits × refunded ÷ amount), a cumulative target,
-- so a partial refund then the full one, a replay, or the two in the other order take back exactly the
-- target once (the refunded amount only grows). Under the balance lock (lock_charge_accounts' first
-- lock), then the payment's row:
--   * a pack: its purchase's unspent credits first (while it has not expired); what the account had
--     already spent of it (not what expired) becomes debt;
--   * a plan payment or renewal: the subscription credits, while its allocation is the account's
--     current one; what was spent of it becomes debt. Once a later period's allocation replaced it,
--     its credits were spent or reset, and the refund takes nothing back.
-- Each move is an `adjustment` ledger row (operation payment_refunded for credits taken, refund_debt
-- for the debt), with the balance (buckets less the debt) after it. The debt blocks charges
-- (reserve_credits answers in_debt) until credits that arrive pay it (pay_debt). Outcomes:
--   not_found   no such payment;
--   unchanged   nothing more to take back (recorded: the refunded amount and status);
--   taken_back  taken (from the buckets) and owed (the debt added).
CREATE OR REPLACE FUNCTION take_back_payment(p_payment TEXT, p_refunded INTEGER, p_at TIMESTAMPTZ)
RETURNS TABLE (outcome TEXT, taken INTEGER, owed INTEGER, debt INTEGER, balance INTEGER)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    owner TEXT;
    bal RECORD;
    pay RECORD;
    purchase RECORD;
    refunded INTEGER;
    target INTEGER;
    delta INTEGER;
    took INTEGER := 0;
    added INTEGER := 0;
    expired INTEGER;
    held INTEGER;
    running INTEGER;
    op_id TEXT := gen_random_uuid()::TEXT;
    meta JSONB;
BEGIN
    SELECT p.user_id INTO owner FROM payments p WHERE p.id = p_payment;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::TEXT, 0, 0, NULL::INTEGER, NULL::INTEGER;
        RETURN;
    END IF;
    SELECT cb.subscription_credits, cb.debt, cb.cycle INTO bal FROM credit_balances cb WHERE cb.user_id = owner FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO credit_balances (user_id, subscription_credits, monthly_allocation, updated_at) VALUES (owner, 0, 0, now())
            ON CONFLICT (user_id) DO NOTHING;
        SELECT cb.subscription_credits, cb.debt, cb.cycle INTO bal FROM credit_balances cb WHERE cb.user_id = owner FOR UPDATE;
    END IF;
    SELECT * INTO pay FROM payments p WHERE p.id = p_payment FOR UPDATE;
    refunded := LEAST(GREATEST(pay.refunded_amount, p_refunded, 0), pay.amount);
    target := CASE WHEN pay.amount > 0 THEN (pay.credits::BIGINT * refunded / pay.amount)::INTEGER
                   WHEN refunded > 0 OR p_refunded > 0 THEN pay.credits ELSE 0 END;
    delta := target - pay.credits_taken_back;
    UPDATE payments SET refunded_amount = refunded,
                        status = CASE WHEN refunded >= amount AND (refunded > 0 OR p_refunded > 0) THEN 'refunded'
                                      WHEN refunded > 0 THEN 'partially_refunded' ELSE status END,
                        refunded_at = CASE WHEN refunded > pay.refunded_amount OR refunded_at IS NULL THEN p_at ELSE refunded_at END,
                        credits_taken_back = GREATEST(credits_taken_back, target),
                        updated_at = now()
        WHERE id = p_payment;
    SELECT h.credits INTO held FROM held_bonus(owner) h;
    running := bal.subscription_credits + held - bal.debt;
    IF delta <= 0 THEN
        RETURN QUERY SELECT 'unchanged'::TEXT, 0, 0, bal.debt, running;
        RETURN;
    END IF;

    meta := jsonb_build_object('paymentId', pay.id, 'provider', pay.provider, 'providerPaymentId', pay.provider_payment_id,
                               'refundedAmount', refunded, 'amount', pay.amount, 'currency', pay.currency);
    INSERT INTO credit_operations (id, user_id, idempotency_key, kind, amount, status, details, created_at, updated_at)
        VALUES (op_id, owner, 'take_back:' || pay.id || ':' || target, 'adjustment', -delta, 'applied',
                meta || jsonb_build_object('reason', 'payment_refunded', 'target', target), now(), now());

    IF pay.bonus_purchase_id IS NOT NULL THEN
        SELECT bp.id, bp.credits, bp.remaining, bp.taken_back, bp.expires_at INTO purchase
            FROM bonus_purchases bp WHERE bp.id = pay.bonus_purchase_id FOR UPDATE;
        IF FOUND THEN
            took := CASE WHEN purchase.expires_at > now() THEN LEAST(delta, purchase.remaining) ELSE 0 END;
            SELECT COALESCE(-SUM(ct.amount), 0)::INTEGER INTO expired
                FROM credit_transactions ct JOIN credit_operations o ON o.id = ct.operation_id
                WHERE ct.bonus_purchase_id = purchase.id AND o.kind = 'expire';
            -- Spent: what left the purchase other than by expiry or an earlier take-back.
            added := LEAST(delta - took, GREATEST(purchase.credits - (purchase.remaining - took) - (purchase.taken_back + took) - expired, 0));
            UPDATE bonus_purchases SET remaining = remaining - took, taken_back = taken_back + took + added WHERE id = purchase.id;
        END IF;
    ELSIF pay.allocation_cycle IS NOT NULL AND pay.allocation_cycle = bal.cycle THEN
        took := LEAST(delta, GREATEST(bal.subscription_credits, 0));
        added := delta - took;
        UPDATE credit_balances SET subscription_credits = subscription_credits - took, updated_at = now() WHERE user_id = owner;
    END IF;
    IF took > 0 THEN
        running := running - took;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (gen_random_uuid()::TEXT, owner, -took, running, 'adjustment', 'payment_refunded', meta,
                    CASE WHEN pay.bonus_purchase_id IS NOT NULL THEN purchase.id END, op_id, CASE WHEN added > 0 THEN clock_timestamp() ELSE now() END);
    END IF;
    IF added > 0 THEN
        running := running - added;
        UPDATE credit_balances SET debt = debt + added, updated_at = now() WHERE user_id = owner;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (gen_random_uuid()::TEXT, owner, -added, running, 'adjustment', 'refund_debt', meta, NULL, op_id, clock_timestamp());
    END IF;
    UPDATE credit_operations SET amount = -(took + added), details = details || jsonb_build_object('taken', took, 'owed', added) WHERE id = op_id;
    RETURN QUERY SELECT 'taken_back'::TEXT, took, added, bal.debt + added, running;
END;
$$;
