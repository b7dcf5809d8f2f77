-- One of a user's AI requests in progress (lib/ratelimit, docs/API-NOTES.md "Limits on AI requests"):
-- the user's slots are serialized by a transaction-scoped advisory lock (the first lock of any
-- statement that takes one), counted, and a slot taken only under the cap. Lapsed slots and those of
-- instances known gone are dropped only when the count reaches the cap: below it they cannot refuse
-- anyone (the live slots are fewer still), and the cleanup on every acquisition cost the database
-- about a fifth of a charged call's CPU (docs/BENCHMARKS.md). A user's rows stay at most the cap:
-- nothing is taken at the cap without the cleanup. One statement per acquisition: one round trip,
-- through PgBouncer's transaction mode too.
CREATE OR REPLACE FUNCTION acquire_ai_slot(p_user TEXT, p_slot TEXT, p_cap INTEGER, p_lease_ms INTEGER, p_instance TEXT, p_lost_after_ms INTEGER)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
    held INTEGER;
    dropped INTEGER;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('ai_request_slots:' || p_user, 0));
    SELECT count(*) INTO held FROM ai_request_slots WHERE user_id = p_user;
    IF held >= p_cap THEN
        DELETE FROM ai_request_slots s
         WHERE s.user_id = p_user
           AND (s.expires_at <= now()
                OR EXISTS (SELECT 1 FROM server_instances i
                            WHERE i.id = s.instance_id
                              AND (i.stopped_at IS NOT NULL OR i.heartbeat_at < now() - make_interval(secs => p_lost_after_ms / 1000.0))));
        GET DIAGNOSTICS dropped = ROW_COUNT;
        IF held - dropped >= p_cap THEN
            RETURN FALSE;
        END IF;
    END IF;
    INSERT INTO ai_request_slots (id, user_id, instance_id, expires_at)
    VALUES (p_slot, p_user, p_instance, now() + make_interval(secs => p_lease_ms / 1000.0));
    RETURN TRUE;
END;
$$;
