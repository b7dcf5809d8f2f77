-- The ledger rows of credits one operation moved (draw_credits' draws, give_back_credits' returns),
-- one per bucket in the order moved: each row's amount (p_sign -1 for a draw, 1 for a return) and the
-- balance after it, the account's subscription plus unexpired bonus credits (p_running before the
-- first row). A return to a purchase that expired is on the ledger but leaves the balance as it was.
-- Several rows of one operation get increasing times (their order is their story); one row the
-- transaction's time. Answers the balance after the last row.
CREATE OR REPLACE FUNCTION insert_credit_rows(p_user TEXT, p_operation_id TEXT, p_type TEXT, p_operation TEXT, p_metadata JSONB, p_moves JSONB, p_sign INTEGER, p_running INTEGER)
RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
    m JSONB;
    running INTEGER := p_running;
    single BOOLEAN := jsonb_array_length(p_moves) = 1;
BEGIN
    FOR m IN SELECT value FROM jsonb_array_elements(p_moves) LOOP
        IF COALESCE((m->>'live')::BOOLEAN, TRUE) THEN
            running := running + p_sign * (m->>'amount')::INTEGER;
        END IF;
        INSERT INTO credit_transactions (id, user_id, amount, balance_after, type, operation, metadata, bonus_purchase_id, operation_id, created_at)
            VALUES (gen_random_uuid()::TEXT, p_user, p_sign * (m->>'amount')::INTEGER, running, p_type, p_operation, p_metadata,
                    m->>'bonusPurchaseId', p_operation_id, CASE WHEN single THEN now() ELSE clock_timestamp() END);
    END LOOP;
    RETURN running;
END;
$$;
