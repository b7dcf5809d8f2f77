-- The bonus credits an account holds: the remaining credits of its bonus purchases that have not expired
-- (spendable or not: whether they may be spent is the caller's auto-use rule). The rule's one home:
-- reserve_credits, settle_charges, refund_charge, take_back_payment, dispute_payment, credit_summary and
-- the TypeScript readers (lib/credits/ledger.ts heldBonusCredits, lib/admin/held-bonus.ts) ask it.
-- A single SELECT in SQL, called in FROM: the planner inlines it into the calling statement (the same
-- index scan on bonus_purchases as before), so it adds no function call to a charge.
CREATE OR REPLACE FUNCTION held_bonus(p_account TEXT) RETURNS TABLE (credits INTEGER)
LANGUAGE sql STABLE AS $$
    SELECT COALESCE(SUM(bp.remaining), 0)::INTEGER FROM bonus_purchases bp
    WHERE bp.user_id = p_account AND bp.remaining > 0 AND bp.expires_at > now()
$$;
