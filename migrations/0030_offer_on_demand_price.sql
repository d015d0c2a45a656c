-- lessor D1 index, part 29: a spot offer's on-demand price beside it, as its provider's adapter
-- states it for the same machine; NULL: an on-demand offer, or not stated. Shown in quotes and
-- the catalog (docs/providers.md "Spot"). See docs/storage.md.
ALTER TABLE offers ADD COLUMN on_demand_hourly_usd REAL;
