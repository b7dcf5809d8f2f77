-- What a charge drew, bucket by bucket in the order drawn: its usage ledger rows (draw_credits writes
-- one per bucket; a settlement that cost more adds its own), as give_back_credits takes them:
-- [{"bonusPurchaseId": null | "<id>", "amount": n}, ...].
CREATE OR REPLACE FUNCTION charge_draws(p_id TEXT, p_user TEXT)
RETURNS JSONB LANGUAGE sql STABLE AS $$
    SELECT COALESCE(jsonb_agg(jsonb_build_object('bonusPurchaseId', ct.bonus_purchase_id, 'amount', -ct.amount) ORDER BY ct.created_at, ct.id),
                    '[]'::JSONB)
      FROM credit_transactions ct
     WHERE ct.operation_id = p_id AND ct.user_id = p_user AND ct.type = 'usage' AND ct.amount < 0
$$;
