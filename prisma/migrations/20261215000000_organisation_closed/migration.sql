-- An organisation its owner deleted (lib/organisations/delete-organisation.ts): the account row and its
-- ledger stay (nothing is lost from the ledger; the remaining balance is refunded to nobody), closed.
ALTER TABLE "organisations" ADD COLUMN "closed_at" TIMESTAMPTZ(3);
ALTER TABLE "organisations" ADD COLUMN "closed_by" TEXT;
