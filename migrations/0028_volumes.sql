-- lessor D1 index, part 27: volumes, storage that outlives a lease (docs/volumes.md, src/volumes/).
-- One row per (org, name); a lease that mounts one holds a row in volume_mounts. See docs/storage.md.
CREATE TABLE volumes (
  id                 TEXT PRIMARY KEY,
  org_id             TEXT NOT NULL,
  name               TEXT NOT NULL,
  provider           TEXT NOT NULL,
  region             TEXT NOT NULL,
  size_gb            INTEGER NOT NULL CHECK (size_gb >= 1),
  -- lessor-<installation>-<id> (src/lease/label.ts volumeLabel): listing by it finds the volume.
  label              TEXT NOT NULL,
  -- The provider's id for it; null until its create answered.
  provider_volume_id TEXT,
  state              TEXT NOT NULL CHECK (state IN ('creating', 'ready', 'deleting')),
  -- What it bills a GB a month, micro-dollars, as the provider stated it at create; null until then.
  gb_month_micro_usd INTEGER CHECK (gb_month_micro_usd IS NULL OR gb_month_micro_usd >= 0),
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  CHECK ((state = 'creating') OR (provider_volume_id IS NOT NULL) OR (state = 'deleting'))
);
CREATE UNIQUE INDEX volumes_org_name ON volumes (org_id, name);

-- Which lease mounts which volume where. Written before the lease's object exists; the volume is
-- in use while the lease's index row is not released (or, with no row yet, for PENDING_MS).
CREATE TABLE volume_mounts (
  volume_id  TEXT NOT NULL,
  lease_id   TEXT NOT NULL,
  path       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (volume_id, lease_id)
);
CREATE INDEX volume_mounts_lease ON volume_mounts (lease_id);
