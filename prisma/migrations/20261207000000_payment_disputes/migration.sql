-- Disputes (chargebacks) on payments: an open dispute freezes the unspent credits the disputed amount
-- bought (payments.credits_held); won gives them back, lost takes the payment back as a refund
-- (prisma/functions/dispute_payment.sql). docs/API-NOTES.md "Disputes".
ALTER TABLE payments ADD COLUMN disputed_amount INTEGER NOT NULL DEFAULT 0;
-- open | won | lost (null: never disputed)
ALTER TABLE payments ADD COLUMN dispute_status TEXT;
ALTER TABLE payments ADD COLUMN credits_held INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payments ADD COLUMN disputed_at TIMESTAMPTZ(3);

\i prisma/functions/dispute_payment.sql
