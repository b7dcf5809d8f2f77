-- settle_exact_charges: the settlement of charges whose final amount is the amount reserved (a flat
-- price, or a metered call that cost exactly its quote), when nobody waits for the balance it leaves
-- (lib/credits/settle-reservation.ts, settlements in the background). Nothing moves between buckets,
-- so no balance row is locked and no bonus purchase read: each charge still `reserved` becomes
-- `settled` with its usage and provider cost, and its usage ledger rows get the usage, in one
-- set-based statement for the whole batch. The status change fires the key and member window triggers
-- as settle_charges does (their correction is zero). Returns the items it settled; an item it did not
-- (refunded or settled before, not this user's, not a charge) settles nothing, as in settle_charges.
CREATE OR REPLACE FUNCTION settle_exact_charges(p_ids TEXT[], p_users TEXT[], p_metadata JSONB[], p_cost_micros BIGINT[])
RETURNS TABLE (item INTEGER) LANGUAGE sql AS $$
    WITH x AS (
        SELECT t.ord::INTEGER AS item, t.id, t.uid, t.meta AS given, COALESCE(t.meta, '{}'::JSONB) AS meta, t.cost
          FROM unnest(p_ids, p_users, p_metadata, p_cost_micros) WITH ORDINALITY AS t(id, uid, meta, cost, ord)
    ), settled AS (
        UPDATE credit_operations o
           SET status = 'settled', updated_at = now(),
               model = COALESCE(x.meta->>'model', o.model),
               cost_micros = x.cost,
               details = jsonb_set(o.details, '{metadata}', COALESCE(o.details->'metadata', '{}'::JSONB) || x.meta)
          FROM x
         WHERE o.id = x.id AND o.user_id = x.uid AND o.kind = 'charge' AND o.status = 'reserved'
        RETURNING x.item, o.id, x.given
    ), usage_rows AS (
        UPDATE credit_transactions t
           SET metadata = COALESCE(t.metadata, '{}'::JSONB) || s.given
          FROM settled s
         WHERE t.operation_id = s.id AND t.type = 'usage' AND s.given IS NOT NULL
        RETURNING t.id
    )
    SELECT item FROM settled;
$$;
