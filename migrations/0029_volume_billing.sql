-- lessor D1 index, part 29: what volumes cost (issue 30, "Money"; docs/volumes.md, docs/billing.md).
-- A volume's bill outlives its row: `volumes` loses the row at DELETE, `volume_bills` keeps what
-- the volume billed (its size and price, from its creation to its deletion) for the budget, usage
-- and receipts, as `lease_machines` keeps a lease's machines. Receipts take a volume's storage
-- too, one a volume a period (a UTC month, or to its deletion). An org may ask that volumes no
-- lease has mounted for a while be reported or deleted. See docs/storage.md.

CREATE TABLE volume_bills (
  volume_id           TEXT PRIMARY KEY,           -- vol_...
  org_id              TEXT NOT NULL,
  name                TEXT NOT NULL,
  provider            TEXT NOT NULL,
  provider_volume_id  TEXT,                       -- null until the create answered
  size_gb             INTEGER NOT NULL CHECK (size_gb >= 1),
  -- What it bills a GB a month, micro-dollars; null: the provider's document states no price.
  gb_month_micro_usd  INTEGER CHECK (gb_month_micro_usd IS NULL OR gb_month_micro_usd >= 0),
  billed_from         INTEGER NOT NULL,           -- its creation
  deleted_at          INTEGER,                    -- null: it still bills
  settled_through     INTEGER NOT NULL,           -- receipts cover [billed_from, settled_through)
  CHECK (deleted_at IS NULL OR deleted_at >= billed_from),
  CHECK (settled_through >= billed_from)
);
CREATE INDEX volume_bills_provider ON volume_bills (provider, provider_volume_id);
CREATE INDEX volume_bills_org ON volume_bills (org_id, billed_from);
-- The settle step: bills with a period still to receipt.
CREATE INDEX volume_bills_open ON volume_bills (provider, settled_through) WHERE deleted_at IS NULL OR settled_through < deleted_at;

-- The volumes made before this migration bill from their creation.
INSERT INTO volume_bills (volume_id, org_id, name, provider, provider_volume_id, size_gb, gb_month_micro_usd, billed_from, deleted_at, settled_through)
  SELECT id, org_id, name, provider, provider_volume_id, size_gb, gb_month_micro_usd, created_at, NULL, created_at FROM volumes;

-- A billing record bills a machine (attributed to a lease) or a volume (attributed to a volume's bill).
ALTER TABLE billing_records ADD COLUMN resource TEXT NOT NULL DEFAULT 'machine' CHECK (resource IN ('machine', 'volume'));
ALTER TABLE billing_records ADD COLUMN volume_id TEXT;
CREATE INDEX billing_records_volume ON billing_records (volume_id, window_start) WHERE volume_id IS NOT NULL;

-- Receipts: a lease's, or a volume's for one period (billed_from to released_at: the period's start
-- and end). A volume whose provider states no price has no estimate (null).
ALTER TABLE receipts RENAME TO receipts_0028;
CREATE TABLE receipts (
  id                  TEXT PRIMARY KEY,           -- rc_...
  org_id              TEXT NOT NULL,
  lease_id            TEXT UNIQUE,
  volume_id           TEXT,
  provider            TEXT NOT NULL,
  gpu_class           TEXT,
  status              TEXT NOT NULL CHECK (status IN ('settled', 'disputed')),
  actual_micro_usd    INTEGER NOT NULL,
  estimate_micro_usd  INTEGER,                    -- null only for a volume whose price is unknown
  components          TEXT NOT NULL,
  windows             TEXT NOT NULL,
  billed_from         INTEGER,                    -- a lease's first billed moment; a volume period's start
  released_at         INTEGER NOT NULL,           -- a lease's release; a volume period's end
  created_at          INTEGER NOT NULL,
  CHECK ((lease_id IS NULL) != (volume_id IS NULL)),
  CHECK (lease_id IS NULL OR estimate_micro_usd IS NOT NULL)
);
INSERT INTO receipts (id, org_id, lease_id, volume_id, provider, gpu_class, status, actual_micro_usd, estimate_micro_usd, components, windows, billed_from, released_at, created_at)
  SELECT id, org_id, lease_id, NULL, provider, gpu_class, status, actual_micro_usd, estimate_micro_usd, components, windows, billed_from, released_at, created_at FROM receipts_0028;
DROP TABLE receipts_0028;
CREATE INDEX receipts_org ON receipts (org_id, id);
CREATE UNIQUE INDEX receipts_volume_period ON receipts (volume_id, billed_from) WHERE volume_id IS NOT NULL;
-- Guarantee 7: a settled receipt never changes.
CREATE TRIGGER receipts_never_change BEFORE UPDATE ON receipts
BEGIN
  SELECT RAISE(ABORT, 'a receipt never changes');
END;

-- `volume_idle_ttl` (null: never) and what to do with a volume idle that long.
ALTER TABLE orgs ADD COLUMN volume_idle_ttl_ms INTEGER CHECK (volume_idle_ttl_ms IS NULL OR volume_idle_ttl_ms > 0);
ALTER TABLE orgs ADD COLUMN volume_idle_action TEXT NOT NULL DEFAULT 'report' CHECK (volume_idle_action IN ('report', 'delete'));
