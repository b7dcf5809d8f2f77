-- Money that flows back: every payment is kept as a receipt (payments), a refund takes back the
-- credits it bought (take_back_payment, prisma/functions/take_back_payment.sql), and what had already
-- been spent becomes the account's debt (credit_balances.debt), which blocks charges until credits
-- that arrive pay it (pay_debt). docs/API-NOTES.md "Refunds and debt".
ALTER TABLE credit_balances ADD COLUMN debt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE credit_balances ADD CONSTRAINT credit_balances_debt_not_negative CHECK (debt >= 0);
ALTER TABLE bonus_purchases ADD COLUMN taken_back INTEGER NOT NULL DEFAULT 0;

CREATE TABLE payments (
    id TEXT NOT NULL PRIMARY KEY,
    user_id TEXT NOT NULL,
    -- lemonsqueezy | simulator (| stripe)
    provider TEXT NOT NULL,
    -- The provider's order or invoice id.
    provider_payment_id TEXT NOT NULL,
    -- pack (a bonus credit package) | plan (a subscription's first payment) | renewal (a subscription invoice)
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    -- In the currency's smallest unit (cents).
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL DEFAULT 'USD',
    refunded_amount INTEGER NOT NULL DEFAULT 0,
    -- paid | partially_refunded | refunded
    status TEXT NOT NULL DEFAULT 'paid',
    receipt_url TEXT,
    -- The credits this payment bought, and how many of them refunds took back so far (cumulative target).
    credits INTEGER NOT NULL DEFAULT 0,
    credits_taken_back INTEGER NOT NULL DEFAULT 0,
    -- Where the credits went: a bonus purchase, or a subscription allocation (its cycle key).
    bonus_purchase_id TEXT,
    allocation_cycle TEXT,
    paid_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    refunded_at TIMESTAMPTZ(3),
    created_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
ALTER TABLE payments ADD CONSTRAINT payments_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE payments ADD CONSTRAINT payments_bonus_purchase_id_fkey FOREIGN KEY (bonus_purchase_id) REFERENCES bonus_purchases(id) ON DELETE SET NULL ON UPDATE CASCADE;
CREATE UNIQUE INDEX payments_provider_payment_key ON payments (provider, provider_payment_id);
CREATE INDEX payments_user_paid_at_idx ON payments (user_id, paid_at DESC);

\i prisma/functions/take_back_payment.sql
\i prisma/functions/pay_debt.sql
