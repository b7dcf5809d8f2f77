-- What moves of credits (draws or returns) did to the two buckets: the subscription credits moved and
-- the spendable bonus credits moved (a return to an expired purchase counts in neither). Callers add or
-- subtract these from the balances they read under the lock, instead of reading the buckets again.
CREATE OR REPLACE FUNCTION moved_credits(p_moves JSONB, OUT subscription INTEGER, OUT bonus INTEGER)
LANGUAGE sql IMMUTABLE AS $$
    SELECT COALESCE(SUM((m->>'amount')::INTEGER) FILTER (WHERE m->>'bonusPurchaseId' IS NULL), 0)::INTEGER,
           COALESCE(SUM((m->>'amount')::INTEGER) FILTER (WHERE m->>'bonusPurchaseId' IS NOT NULL AND COALESCE((m->>'live')::BOOLEAN, TRUE)), 0)::INTEGER
      FROM jsonb_array_elements(p_moves) m
$$;
