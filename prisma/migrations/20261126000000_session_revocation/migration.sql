-- Ending a user's sessions: an operator unlinking a sign-in identity (say, one that took the account
-- over) revokes every session signed in until then (lib/users/account-state.ts).
ALTER TABLE "users" ADD COLUMN "sessions_revoked_at" TIMESTAMPTZ(3);
