-- What a charge drew, bucket by bucket in the order drawn: its usage ledger rows (draw_credits writes
-- one per bucket; a settlement that cost more adds its own), as give_back_credits takes them:
-- [{"bonusPurchaseId": null | "<id>", "amount": n}, ...]. Rows are ordered by their time, and rows of
-- one time (the ledger keeps milliseconds: one draw's rows often share one) in the draw order itself:
-- the subscription credits, then bonus purchases by expiry, creation and id (draw_credits).
CREATE OR REPLACE FUNCTION charge_draws(p_id TEXT, p_user TEXT)
RETURNS JSONB LANGUAGE sql STABLE AS $$
    SELECT COALESCE(jsonb_agg(jsonb_build_object('bonusPurchaseId', ct.bonus_purchase_id, 'amount', -ct.amount)
                              ORDER BY ct.created_at, ct.bonus_purchase_id IS NOT NULL, bp.expires_at, bp.created_at, bp.id, ct.id),
                    '[]'::JSONB)
      FROM credit_transactions ct
      LEFT JOIN bonus_purchases bp ON bp.id = ct.bonus_purchase_id
     WHERE ct.operation_id = p_id AND ct.user_id = p_user AND ct.type = 'usage' AND ct.amount < 0
$$;
