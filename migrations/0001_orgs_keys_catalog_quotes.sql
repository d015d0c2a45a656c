-- lessor D1 index, part 1: tenants, credentials, the offer cache and quotes.
-- Times are integer milliseconds since the epoch (UTC). See docs/storage.md.

CREATE TABLE orgs (
  id          TEXT PRIMARY KEY,                 -- org_...
  name        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id          TEXT PRIMARY KEY,                 -- key_...
  org_id      TEXT NOT NULL REFERENCES orgs(id),
  name        TEXT NOT NULL,
  prefix      TEXT NOT NULL,                    -- first characters of the secret, for display
  hash        TEXT NOT NULL UNIQUE,             -- hex SHA-256 of the whole secret
  scope       TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
);
CREATE INDEX api_keys_org ON api_keys (org_id, id);

CREATE TABLE issuers (
  id          TEXT PRIMARY KEY,                 -- iss_...
  org_id      TEXT NOT NULL REFERENCES orgs(id),
  jwks_url    TEXT NOT NULL,
  iss         TEXT NOT NULL,
  aud         TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (org_id, iss, aud)
);
CREATE INDEX issuers_iss ON issuers (iss);

-- The offer cache: replaced per provider by each catalog refresh.
CREATE TABLE offers (
  id                 TEXT PRIMARY KEY,          -- "<provider>:<provider offer id>"
  provider           TEXT NOT NULL,
  provider_offer_id  TEXT NOT NULL,
  gpu_class          TEXT NOT NULL,             -- a GPU class name, or 'cpu' for CPU-only machines
  gpu_count          INTEGER NOT NULL CHECK (gpu_count >= 0),
  vram_gb            INTEGER NOT NULL,          -- per GPU; 0 for CPU-only
  vcpu               INTEGER NOT NULL,
  memory_gb          INTEGER NOT NULL,
  disk_gb            INTEGER NOT NULL,
  region             TEXT NOT NULL,
  host_id            TEXT NOT NULL,
  hourly_usd         REAL NOT NULL CHECK (hourly_usd >= 0),
  availability       TEXT NOT NULL CHECK (availability IN ('high', 'medium', 'low')),
  spot               INTEGER NOT NULL CHECK (spot IN (0, 1)),
  refreshed_at       INTEGER NOT NULL
);
CREATE INDEX offers_price ON offers (hourly_usd, id);
CREATE INDEX offers_class_price ON offers (gpu_class, hourly_usd, id);
CREATE INDEX offers_provider ON offers (provider, refreshed_at);

CREATE TABLE quotes (
  id           TEXT PRIMARY KEY,                -- qt_...
  org_id       TEXT NOT NULL REFERENCES orgs(id),
  body         TEXT NOT NULL,                   -- the quote as answered, JSON; never changes
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
);
CREATE INDEX quotes_org ON quotes (org_id, id);
