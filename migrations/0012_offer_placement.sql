-- lessor D1 index, part 12: what the market allows of an offer's host, and what moving data costs
-- there. NULL: the provider says nothing of it (src/catalog/offer.ts). See docs/storage.md.
ALTER TABLE offers ADD COLUMN host_duration_s REAL;
ALTER TABLE offers ADD COLUMN cuda_max REAL;
ALTER TABLE offers ADD COLUMN inet_down_usd_per_gb REAL;
ALTER TABLE offers ADD COLUMN inet_up_usd_per_gb REAL;
