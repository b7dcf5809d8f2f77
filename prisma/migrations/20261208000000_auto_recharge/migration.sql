-- Auto-recharge (Stripe): when a charge leaves an account's balance under its threshold, one top-up
-- is claimed in the charge's transaction (claim_auto_recharge, a trigger on the ledger) and paid off
-- the request path with the saved card. docs/API-NOTES.md "Auto-recharge".
CREATE TABLE auto_recharge_settings (
    account_id TEXT NOT NULL PRIMARY KEY,
    enabled BOOLEAN NOT NULL DEFAULT false,
    -- Under this balance a top-up starts.
    threshold INTEGER NOT NULL,
    -- The pack bought each time: its variant (price) id, credits and price (cents) when it was chosen.
    variant_id TEXT NOT NULL,
    credits INTEGER NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL DEFAULT 'USD',
    -- Per calendar month (UTC): at most this many top-ups, and this much money (cents).
    monthly_max_count INTEGER NOT NULL,
    monthly_max_amount INTEGER NOT NULL,
    -- A failed top-up pauses auto-recharge until the owner acts (a new card, then turns it on again).
    paused_at TIMESTAMPTZ(3),
    paused_reason TEXT,
    updated_by TEXT,
    created_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT auto_recharge_settings_positive CHECK (threshold >= 0 AND credits > 0 AND amount > 0 AND monthly_max_count >= 1 AND monthly_max_amount >= amount)
);
ALTER TABLE auto_recharge_settings ADD CONSTRAINT auto_recharge_settings_account_id_fkey FOREIGN KEY (account_id) REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE auto_recharges (
    id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL,
    -- The calendar month (UTC, YYYY-MM) whose limits it counts against.
    month TEXT NOT NULL,
    -- claimed (by a charge) | processing (a server is paying it) | succeeded | failed
    status TEXT NOT NULL DEFAULT 'claimed',
    variant_id TEXT NOT NULL,
    credits INTEGER NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL DEFAULT 'USD',
    balance_at_claim INTEGER,
    -- The provider's payment (Stripe's PaymentIntent), once started.
    provider_payment_id TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    locked_until TIMESTAMPTZ(3),
    -- The account's id while the top-up is in flight (claimed, processing), null once it finished: its
    -- unique index allows one top-up in flight per account, so a second crossing's claim does nothing.
    in_flight TEXT,
    created_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ(3)
);
ALTER TABLE auto_recharges ADD CONSTRAINT auto_recharges_account_id_fkey FOREIGN KEY (account_id) REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE UNIQUE INDEX auto_recharges_in_flight_key ON auto_recharges (in_flight);
CREATE INDEX auto_recharges_account_month_idx ON auto_recharges (account_id, month);
CREATE INDEX auto_recharges_status_created_idx ON auto_recharges (status, created_at);

-- The customer a payment was made by (Stripe: whose saved card auto-recharge charges).
ALTER TABLE payments ADD COLUMN provider_customer_id TEXT;

\i prisma/functions/claim_auto_recharge.sql
CREATE TRIGGER claim_auto_recharge AFTER INSERT ON credit_transactions
    FOR EACH ROW WHEN (NEW.amount < 0) EXECUTE FUNCTION claim_auto_recharge();
