-- lessor D1 index, part 20: what a stopped machine of an offer bills an hour (its kept disk), as
-- its provider's adapter states it; NULL: nothing (a stop ends billing, or no stop), or not stated.
-- Part of a quote's ceiling (docs/design.md "The worst case"). See docs/storage.md.
ALTER TABLE offers ADD COLUMN stopped_hourly_usd REAL;
