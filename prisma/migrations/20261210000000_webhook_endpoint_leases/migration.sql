-- A webhook endpoint's lease names its holder: the delivery runner renews it before every send and
-- gives back only its own, so a run longer than the lease keeps the endpoint and a runner whose lease
-- ran out (and was taken over) never frees the new holder's (docs/API-NOTES.md "Delivery").
ALTER TABLE "webhook_endpoints" ADD COLUMN "lease_token" TEXT;
