-- AI requests in progress per user (lib/ratelimit/concurrency.ts): a user may have at most
-- AI_MAX_CONCURRENT_PER_USER at once across every instance. A slot is released when its request
-- ends; one left by a process that died lapses at its lease, or as soon as its instance is known gone.
CREATE TABLE "ai_request_slots" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "instance_id" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ai_request_slots_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "ai_request_slots_user_id_idx" ON "ai_request_slots"("user_id");

-- One statement per acquisition (one round trip, through PgBouncer's transaction mode too): the
-- user's slots are serialized by a transaction-scoped advisory lock, lapsed slots dropped, the rest
-- counted, and a slot taken only under the cap.
CREATE OR REPLACE FUNCTION acquire_ai_slot(p_user TEXT, p_slot TEXT, p_cap INTEGER, p_lease_ms INTEGER, p_instance TEXT, p_lost_after_ms INTEGER)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
    held INTEGER;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('ai_request_slots:' || p_user, 0));
    DELETE FROM ai_request_slots s
     WHERE s.user_id = p_user
       AND (s.expires_at <= now()
            OR EXISTS (SELECT 1 FROM server_instances i
                        WHERE i.id = s.instance_id
                          AND (i.stopped_at IS NOT NULL OR i.heartbeat_at < now() - make_interval(secs => p_lost_after_ms / 1000.0))));
    SELECT count(*) INTO held FROM ai_request_slots WHERE user_id = p_user;
    IF held >= p_cap THEN
        RETURN FALSE;
    END IF;
    INSERT INTO ai_request_slots (id, user_id, instance_id, expires_at)
    VALUES (p_slot, p_user, p_instance, now() + make_interval(secs => p_lease_ms / 1000.0));
    RETURN TRUE;
END;
$$;

-- Sessions ended before their token expires (lib/auth/revoke-session.ts): the token's session id
-- (its `sid` claim), kept until the longest a token of it can still be presented.
CREATE TABLE "revoked_sessions" (
    "sid" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "revoked_sessions_pkey" PRIMARY KEY ("sid")
);
CREATE INDEX "revoked_sessions_user_id_idx" ON "revoked_sessions"("user_id");
CREATE INDEX "revoked_sessions_expires_at_idx" ON "revoked_sessions"("expires_at");
ALTER TABLE "revoked_sessions" ADD CONSTRAINT "revoked_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
