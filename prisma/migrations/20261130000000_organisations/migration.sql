-- Organisations (lib/organisations, docs/API-NOTES.md "Organisations"): a team shares one wallet.
-- An organisation is an account like a person: its own users row (kind 'organisation', no email and
-- no sign-in identity), so its wallet is the same ledger as a person's (credit_balances,
-- credit_transactions, credit_operations, bonus_purchases, subscriptions keyed by user_id) with the
-- same reserve and settle rules. Members are people; each charge to an organisation names the member
-- who made it, and the member's daily and monthly caps are checked and counted in the charge's own
-- statement (reserve_credits_for_member), corrected by its settlement or refund (a trigger).
ALTER TABLE "users" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'person';

CREATE TABLE "organisations" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organisations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "organisations_slug_key" ON "organisations"("slug");
ALTER TABLE "organisations" ADD CONSTRAINT "organisations_id_fkey" FOREIGN KEY ("id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "organisation_members" (
    "organisation_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "daily_cap" INTEGER,
    "monthly_cap" INTEGER,
    "day_start" TIMESTAMPTZ(3),
    "day_spent" INTEGER NOT NULL DEFAULT 0,
    "month_start" TIMESTAMPTZ(3),
    "month_spent" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organisation_members_pkey" PRIMARY KEY ("organisation_id", "user_id")
);
CREATE INDEX "organisation_members_user_id_idx" ON "organisation_members"("user_id");
ALTER TABLE "organisation_members" ADD CONSTRAINT "organisation_members_organisation_id_fkey" FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "organisation_members" ADD CONSTRAINT "organisation_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An invitation by email: only the token's SHA-256 is kept; it works once, for the invited address, until it expires.
CREATE TABLE "organisation_invites" (
    "id" TEXT NOT NULL,
    "organisation_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "invited_by" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "accepted_by" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organisation_invites_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "organisation_invites_token_hash_key" ON "organisation_invites"("token_hash");
CREATE INDEX "organisation_invites_organisation_id_created_at_idx" ON "organisation_invites"("organisation_id", "created_at");
ALTER TABLE "organisation_invites" ADD CONSTRAINT "organisation_invites_organisation_id_fkey" FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An organisation's key is made by one of its members (the charges it makes count against that member's caps).
ALTER TABLE "api_keys" ADD COLUMN "created_by" TEXT;

-- The member who made a charge to an organisation: written by reserve_credits_for_member (a person's
-- charges never pass a trigger for it).
ALTER TABLE "credit_operations" ADD COLUMN "member_id" TEXT;

-- A member's windows counted the reserved amount: corrected to the final one (settled) or given back
-- (refunded), for the windows the charge belongs to. Named to fire before credit_operations_key_spend
-- (triggers fire in name order), so every writer locks balance, member, then key.
CREATE OR REPLACE FUNCTION credit_operations_cap_spend() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
    delta INTEGER;
BEGIN
    IF NEW.member_id IS NULL OR OLD.status <> 'reserved' OR NEW.status = 'reserved' THEN
        RETURN NEW;
    END IF;
    delta := CASE WHEN NEW.status = 'settled' THEN NEW.amount ELSE 0 END - OLD.amount;
    UPDATE organisation_members SET
        day_spent = CASE WHEN day_start IS NOT NULL AND OLD.created_at >= day_start THEN GREATEST(0, day_spent + delta) ELSE day_spent END,
        month_spent = CASE WHEN month_start IS NOT NULL AND OLD.created_at >= month_start THEN GREATEST(0, month_spent + delta) ELSE month_spent END
    WHERE organisation_id = NEW.user_id AND user_id = NEW.member_id;
    RETURN NEW;
END;
$$;
CREATE TRIGGER credit_operations_cap_spend AFTER UPDATE OF status ON credit_operations
    FOR EACH ROW WHEN (NEW.member_id IS NOT NULL) EXECUTE FUNCTION credit_operations_cap_spend();

-- reserve_credits_for_member: a charge to an organisation's wallet by one of its members (with one of
-- the organisation's keys, or acting as the organisation in a session). One statement: the balance
-- row, the member row and (with a key) the key row are locked in that order; the member's day and month
-- windows roll over; the charge is refused when the member is no longer one ('no_member'), when the
-- member's reserved and settled spend plus this one would pass a cap ('over_cap'), or when the key's
-- budget would ('over_budget'); else reserved (reserve_credits or reserve_credits_for_key) and counted
-- in both windows. In-flight reservations count, so concurrent calls never pass a cap.
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
    day_begin TIMESTAMPTZ := api_key_window_start('day', now());
    month_begin TIMESTAMPTZ := api_key_window_start('month', now());
BEGIN
    PERFORM 1 FROM credit_balances cb WHERE cb.user_id = p_user FOR UPDATE;
    SELECT om.daily_cap, om.monthly_cap, om.day_start, om.day_spent, om.month_start, om.month_spent INTO m
        FROM organisation_members om WHERE om.organisation_id = p_user AND om.user_id = p_member FOR UPDATE;
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
    END IF;
    RETURN QUERY SELECT r.outcome, r.reservation_id, r.amount, r.subscription_credits, r.bonus_held, r.auto_use, r.monthly_allocation, r.reset_at, r.tier,
        r.key_spent, r.key_budget, r.key_period, r.key_window_start, NULL::TEXT, NULL::INTEGER, NULL::INTEGER;
END;
$$;
