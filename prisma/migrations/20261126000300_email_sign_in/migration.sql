-- Sign-in by emailed link (lib/auth/email-link.ts): what verification needs and nothing more. The
-- link's token is stored as its SHA-256; a link works once, until it expires.
CREATE TABLE "email_sign_in_tokens" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_sign_in_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "email_sign_in_tokens_token_hash_key" ON "email_sign_in_tokens"("token_hash");
CREATE INDEX "email_sign_in_tokens_expires_at_idx" ON "email_sign_in_tokens"("expires_at");
