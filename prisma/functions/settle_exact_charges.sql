-- Settlements of charges whose final amount is the amount reserved (a flat price, or a metered call
-- that cost exactly its quote), when nobody waits for the balance it leaves (lib/credits/
-- settle-reservation.ts, settlements in the background). Nothing moves between buckets, so no bonus
-- purchase is read and no balance changes: each charge still `reserved` becomes `settled` with its usage
-- and provider cost, and its usage ledger rows get the usage. The balance row is still locked first
-- (lock_charge_accounts' order: the status change takes the member's and key's rows through
-- credit_operations_windows, whose correction is zero here). The caller sorts the items by account.
-- Each row is found by its own key, never through a join the embedded database's planner could turn
-- into a scan of the ledger. Answers the items it settled; one it did not (refunded or settled
-- before, another account's, not a charge) settles nothing.
CREATE OR REPLACE FUNCTION settle_exact_charges(p_ids TEXT[], p_users TEXT[], p_metadata JSONB[], p_cost_micros BIGINT[])
RETURNS TABLE (item INTEGER) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    meta JSONB;
BEGIN
    FOR i IN 1 .. COALESCE(array_length(p_ids, 1), 0) LOOP
        meta := COALESCE(p_metadata[i], '{}'::JSONB);
        -- The balance row: the first lock of lock_charge_accounts' order, taken in place (a nested call
        -- costs the embedded database more than the lock); the member's and key's rows come through
        -- credit_operations_windows when the status changes.
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
