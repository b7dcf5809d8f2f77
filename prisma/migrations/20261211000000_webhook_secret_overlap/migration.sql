-- A rotated webhook signing secret keeps signing beside the new one until previous_secret_expires_at
-- (both signatures in webhook-signature, as Standard Webhooks allows), so receivers switch without a gap.
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret" TEXT;
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);
