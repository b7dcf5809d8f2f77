-- The start of the budget window `p_period` that contains `p_now` (UTC): a day, a month, or all time.
-- An API key's budget and an organisation member's caps count spend in these windows.
CREATE OR REPLACE FUNCTION api_key_window_start(p_period TEXT, p_now TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE p_period
        WHEN 'day' THEN date_trunc('day', p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        WHEN 'month' THEN date_trunc('month', p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        ELSE TIMESTAMPTZ '1970-01-01 00:00:00+00'
    END
$$;
