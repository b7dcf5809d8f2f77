-- settle_exact_charges: the settlement of charges whose final amount is the amount reserved (a flat
-- price, or a metered call that cost exactly its quote), when nobody waits for the balance it leaves
-- (lib/credits/settle-reservation.ts, settlements in the background). Nothing moves between buckets,
-- so no bonus purchase is read and no balance changes: each charge still `reserved` becomes `settled`
-- with its usage and provider cost, and its usage ledger rows get the usage. The balance row is still
-- locked first: every writer locks balance, member, then key (the window triggers below lock the
-- latter two), and a settlement that skipped the first would deadlock with a reservation holding it.
-- The caller sorts the items by account, as every grouped statement does. Each row is found by its own key (the charge by its id,
-- its ledger rows by their operation id), never through a join the embedded database's planner (no
-- statistics) could turn into a scan of the whole ledger. The status change fires the key and member
-- window triggers as settle_charges does (their correction is zero). Returns the items it settled; an
-- item it did not (refunded or settled before, not this user's, not a charge) settles nothing, as in
-- settle_charges.
CREATE OR REPLACE FUNCTION settle_exact_charges(p_ids TEXT[], p_users TEXT[], p_metadata JSONB[], p_cost_micros BIGINT[])
RETURNS TABLE (item INTEGER) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    meta JSONB;
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_ids, 1), 0) LOOP
        meta := COALESCE(p_metadata[i], '{}'::JSONB);
        PERFORM 1 FROM credit_balances WHERE user_id = p_users[i] FOR UPDATE;
        UPDATE credit_operations
           SET status = 'settled', updated_at = now(),
               model = COALESCE(meta->>'model', model),
               cost_micros = p_cost_micros[i],
               details = jsonb_set(details, '{metadata}', COALESCE(details->'metadata', '{}'::JSONB) || meta)
         WHERE id = p_ids[i] AND user_id = p_users[i] AND kind = 'charge' AND status = 'reserved';
        IF FOUND THEN
            IF p_metadata[i] IS NOT NULL THEN
                UPDATE credit_transactions SET metadata = COALESCE(metadata, '{}'::JSONB) || p_metadata[i]
                 WHERE operation_id = p_ids[i] AND type = 'usage';
            END IF;
            item := i;
            RETURN NEXT;
        END IF;
    END LOOP;
END;
$$;
