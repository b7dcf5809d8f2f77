-- Per-user API keys for the OpenAI-compatible API (lib/api-keys, docs/API-NOTES.md "OpenAI-compatible
-- API"): only the secret's SHA-256 is stored, with its prefix and last four characters for display.
-- A key's budget is counted in the same statements that charge and settle its calls.
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "last_four" TEXT NOT NULL,
    "models" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "kinds" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "budget_credits" INTEGER,
    "budget_period" TEXT,
    "window_start" TIMESTAMPTZ(3),
    "window_spent" INTEGER NOT NULL DEFAULT 0,
    "rpm" INTEGER,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by" TEXT,
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");
CREATE INDEX "api_keys_user_id_created_at_idx" ON "api_keys"("user_id", "created_at");
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The key a charge was made with (its budget and spend follow the charge's settlement or refund).
ALTER TABLE "credit_operations" ADD COLUMN "api_key_id" TEXT;
CREATE INDEX "credit_operations_api_key_id_idx" ON "credit_operations"("api_key_id");

-- The start of the budget window `p_period` that contains `p_now` (UTC): day, month, or all time.
CREATE OR REPLACE FUNCTION api_key_window_start(p_period TEXT, p_now TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE p_period
        WHEN 'day' THEN date_trunc('day', p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        WHEN 'month' THEN date_trunc('month', p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        ELSE TIMESTAMPTZ '1970-01-01 00:00:00+00'
    END
$$;

-- A key's spend is its charges: the charge row names the key (from the reservation's metadata,
-- `apiKeyId`; its total spend is summed from these rows when keys are listed), and when a charge of a
-- key with a budget is settled or refunded, the budget window is corrected in the same transaction. Every writer holds the user's balance row lock before the key row's (the lock order
-- everywhere: balance, then key), so charges, settlements and refunds never deadlock.
CREATE OR REPLACE FUNCTION credit_operations_key_id() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind = 'charge' AND NEW.api_key_id IS NULL THEN
        NEW.api_key_id := NEW.details->'metadata'->>'apiKeyId';
    END IF;
    RETURN NEW;
END;
$$;
-- WHEN clauses: rows of calls made without a key never enter the trigger functions.
CREATE TRIGGER credit_operations_key_id BEFORE INSERT ON credit_operations
    FOR EACH ROW WHEN (NEW.kind = 'charge' AND NEW.details->'metadata' ? 'apiKeyId') EXECUTE FUNCTION credit_operations_key_id();

CREATE OR REPLACE FUNCTION credit_operations_key_spend() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.api_key_id IS NULL OR OLD.status <> 'reserved' OR NEW.status = 'reserved' THEN
        RETURN NEW;
    END IF;
    -- The window counted the reserved amount: correct it to the final one (settled) or take it back
    -- (refunded), if the charge belongs to the current window. Keys without a budget keep no window.
    UPDATE api_keys SET
        window_spent = GREATEST(0, window_spent - OLD.amount + CASE WHEN NEW.status = 'settled' THEN NEW.amount ELSE 0 END)
    WHERE id = NEW.api_key_id AND budget_credits IS NOT NULL AND window_start IS NOT NULL AND OLD.created_at >= window_start;
    RETURN NEW;
END;
$$;
CREATE TRIGGER credit_operations_key_spend AFTER UPDATE OF status ON credit_operations
    FOR EACH ROW WHEN (NEW.api_key_id IS NOT NULL) EXECUTE FUNCTION credit_operations_key_spend();

-- reserve_credits_for_key: a charge made with an API key. One statement: the balance row, then the key
-- row are locked, the key's budget window rolled over when a new day or month began, the charge
-- refused when the key's reserved and settled spend plus this one would pass its budget (outcome
-- 'over_budget'), else reserved by reserve_credits and counted against the window. In-flight
-- reservations count, so concurrent calls never take a key past its budget.
CREATE OR REPLACE FUNCTION reserve_credits_for_key(
    p_key_id TEXT,
    p_user TEXT,
    p_amount INTEGER,
    p_month_start TIMESTAMPTZ,
    p_id TEXT,
    p_operation TEXT,
    p_metadata JSONB,
    p_bonus_always BOOLEAN
) RETURNS TABLE (outcome TEXT, reservation_id TEXT, amount INTEGER, subscription_credits INTEGER, bonus_held INTEGER, auto_use BOOLEAN,
                  monthly_allocation INTEGER, reset_at TIMESTAMPTZ, tier TEXT, key_spent INTEGER, key_budget INTEGER, key_period TEXT, key_window_start TIMESTAMPTZ)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    k RECORD;
    r RECORD;
    start TIMESTAMPTZ;
BEGIN
    PERFORM 1 FROM credit_balances cb WHERE cb.user_id = p_user FOR UPDATE;
    SELECT ak.budget_credits, ak.budget_period, ak.window_start, ak.window_spent INTO k
        FROM api_keys ak WHERE ak.id = p_key_id AND ak.user_id = p_user FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_key'::TEXT, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TIMESTAMPTZ;
        RETURN;
    END IF;
    start := api_key_window_start(k.budget_period, now());
    IF k.window_start IS DISTINCT FROM start THEN
        k.window_spent := 0;
        UPDATE api_keys SET window_start = start, window_spent = 0 WHERE id = p_key_id;
    END IF;
    IF k.budget_credits IS NOT NULL AND k.window_spent + p_amount > k.budget_credits THEN
        RETURN QUERY SELECT 'over_budget'::TEXT, NULL::TEXT, p_amount, NULL::INTEGER, NULL::INTEGER, NULL::BOOLEAN, NULL::INTEGER, NULL::TIMESTAMPTZ, NULL::TEXT,
            k.window_spent, k.budget_credits, k.budget_period, start;
        RETURN;
    END IF;
    SELECT * INTO r FROM reserve_credits(p_user, p_amount, p_month_start, p_id, p_operation, p_metadata, NULL, p_bonus_always);
    IF r.outcome = 'charged' THEN
        UPDATE api_keys SET window_spent = window_spent + p_amount WHERE id = p_key_id;
        k.window_spent := k.window_spent + p_amount;
    END IF;
    RETURN QUERY SELECT r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use, r.monthly_allocation, r.reset_at, r.tier,
        k.window_spent, k.budget_credits, k.budget_period, start;
END;
$$;
