-- Service keys (lib/api-keys): an organisation's keys that belong to it, not to the person who made
-- them: their charges count against no member's caps, and they survive their maker's departure.
ALTER TABLE "api_keys" ADD COLUMN "service" BOOLEAN NOT NULL DEFAULT false;
