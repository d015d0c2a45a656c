-- lessor D1 index, part 21: how long a machine of an offer takes from create to running, in whole
-- seconds, as its provider states it; NULL: not stated (no real provider states one; the sim states
-- its boot model's). The `max_startup_s` filter passes only offers that state one at or below it.
-- See docs/storage.md.
ALTER TABLE offers ADD COLUMN startup_s INTEGER;
