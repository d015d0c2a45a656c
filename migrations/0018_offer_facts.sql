-- lessor D1 index, part 17: more of what a provider states of an offer's host, each NULL where it
-- says nothing (src/catalog/offer.ts): its reliability score (0-1) and its internet speeds.
-- See docs/storage.md.
ALTER TABLE offers ADD COLUMN reliability REAL;
ALTER TABLE offers ADD COLUMN inet_down_mbps REAL;
ALTER TABLE offers ADD COLUMN inet_up_mbps REAL;
