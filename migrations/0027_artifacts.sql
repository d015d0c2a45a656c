-- lessor D1 index, part 27: data in and out (issue 29, docs/artifacts.md). The bytes are in R2
-- (binding ARTIFACTS); these rows are what lessor knows of them. Times are integer milliseconds
-- since the epoch; sizes are bytes. See docs/storage.md.

-- A workdir bundle (`upl_...`), at R2 key orgs/{org_id}/uploads/{id}.
CREATE TABLE uploads (
  id         TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  size       INTEGER NOT NULL CHECK (size >= 0),
  sha256     TEXT NOT NULL CHECK (length(sha256) = 64),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX uploads_expiry ON uploads (expires_at);
CREATE INDEX uploads_org ON uploads (org_id, created_at);

-- The leases that use a bundle: one that the index does not show released keeps it past its
-- expires_at (src/artifacts/store.ts; a hold whose lease has no index row yet, for an hour).
CREATE TABLE upload_holds (
  upload_id  TEXT NOT NULL,
  lease_id   TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (upload_id, lease_id)
);
CREATE INDEX upload_holds_lease ON upload_holds (lease_id);

-- An artifact: one file under a lease's LESSOR_OUT, at R2 key `key`
-- (orgs/{org_id}/leases/{lease_id}/out/{object id}: each stored version has a key of its own, so a
-- replacement that fails its digest leaves the one before untouched).
CREATE TABLE artifacts (
  lease_id   TEXT NOT NULL,
  path       TEXT NOT NULL,
  org_id     TEXT NOT NULL,
  key        TEXT NOT NULL,
  size       INTEGER NOT NULL CHECK (size >= 0),
  sha256     TEXT NOT NULL CHECK (length(sha256) = 64),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (lease_id, path)
);
CREATE INDEX artifacts_org ON artifacts (org_id, created_at);

-- One row per lease that stored an artifact: its bytes (the per-lease cap) and, once the lease is
-- released and the cron has seen it, when its artifacts expire (the org's artifact_retention).
CREATE TABLE lease_storage (
  lease_id   TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  used_bytes INTEGER NOT NULL DEFAULT 0 CHECK (used_bytes >= 0),
  expires_at INTEGER
);
CREATE INDEX lease_storage_unstamped ON lease_storage (lease_id) WHERE expires_at IS NULL;
CREATE INDEX lease_storage_expiry ON lease_storage (expires_at) WHERE expires_at IS NOT NULL;

-- The org's bundles and artifacts, and the bytes admitted for uploads in progress: what its
-- storage quota is held against, by a conditional write before a byte is stored.
CREATE TABLE org_storage (
  org_id     TEXT PRIMARY KEY,
  used_bytes INTEGER NOT NULL DEFAULT 0 CHECK (used_bytes >= 0)
);

-- A multipart artifact upload in progress (`mpu_...`): R2's upload id, what the whole file must
-- be, and each part stored (R2's binding cannot list an upload's parts).
CREATE TABLE artifact_uploads (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  lease_id    TEXT NOT NULL,
  path        TEXT NOT NULL,
  key         TEXT NOT NULL,
  r2_upload   TEXT NOT NULL,
  size        INTEGER NOT NULL CHECK (size >= 0),
  sha256      TEXT NOT NULL CHECK (length(sha256) = 64),
  created_at  INTEGER NOT NULL
);
CREATE INDEX artifact_uploads_age ON artifact_uploads (created_at);
CREATE TABLE artifact_parts (
  upload_id TEXT NOT NULL,
  part      INTEGER NOT NULL CHECK (part >= 1),
  size      INTEGER NOT NULL,
  etag      TEXT NOT NULL,
  sha256    TEXT NOT NULL,
  PRIMARY KEY (upload_id, part)
);

-- What storage was kept, for usage's storage_gb_month: one row per object deleted (its bytes and
-- how long it was kept); objects still stored are counted from their own rows.
CREATE TABLE storage_spans (
  org_id     TEXT NOT NULL,
  bytes      INTEGER NOT NULL,
  from_at    INTEGER NOT NULL,
  to_at      INTEGER NOT NULL
);
CREATE INDEX storage_spans_org ON storage_spans (org_id, to_at);

-- How long an org keeps a released lease's artifacts, ms (src/orgs/settings.ts
-- `artifact_retention`); NULL: the default, 30 days.
ALTER TABLE orgs ADD COLUMN artifact_retention_ms INTEGER CHECK (artifact_retention_ms IS NULL OR artifact_retention_ms > 0);
