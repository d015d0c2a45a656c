-- lessor D1 index, part 7 (issue 10, items 7 and 8): when each provider's market was last read,
-- and what the cron's retention step needs to delete old rows in bounded batches.
-- Times are integer milliseconds since the epoch. See docs/storage.md.

-- One row per provider whose market the catalog refresh tried to read. A provider whose market
-- has not been read for 10 minutes has its offers shown stale and never quoted
-- (src/catalog/offer.ts OFFER_MAX_AGE_MS).
CREATE TABLE offer_markets (
  provider      TEXT PRIMARY KEY,
  refreshed_at  INTEGER,                        -- the last successful read; null: never
  attempted_at  INTEGER NOT NULL,               -- the last attempt, successful or not
  error         TEXT                            -- why the last attempt failed (an error kind, never a provider's words); null when it worked
);
-- Offers already cached were read by some refresh: their time is the market's.
INSERT INTO offer_markets (provider, refreshed_at, attempted_at, error)
  SELECT provider, MAX(refreshed_at), MAX(refreshed_at), NULL FROM offers GROUP BY provider;

-- The quote a lease was created from (never changes once written), so that the retention step
-- keeps the quotes leases refer to.
ALTER TABLE leases ADD COLUMN quote_id TEXT;
UPDATE leases SET quote_id = json_extract(body, '$.quote_id') WHERE json_valid(body);
CREATE INDEX leases_quote ON leases (quote_id) WHERE quote_id IS NOT NULL;

-- 1: the retention step found a lease that refers to this quote; it is kept as long as the lease
-- and leaves the retention step's index, so each run reads only quotes it has not looked at.
ALTER TABLE quotes ADD COLUMN kept INTEGER NOT NULL DEFAULT 0 CHECK (kept IN (0, 1));
CREATE INDEX quotes_expiry ON quotes (expires_at) WHERE kept = 0;
