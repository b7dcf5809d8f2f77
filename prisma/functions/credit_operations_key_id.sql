-- Trigger function (BEFORE INSERT on credit_operations, for charges whose metadata names a key): the
-- API key a charge was made with, from the reservation's metadata (`apiKeyId`), on its own column, so
-- a key's spend is its charges and its window follows their settlement (credit_operations_windows).
CREATE OR REPLACE FUNCTION credit_operations_key_id() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind = 'charge' AND NEW.api_key_id IS NULL THEN
        NEW.api_key_id := NEW.details->'metadata'->>'apiKeyId';
    END IF;
    RETURN NEW;
END;
$$;
