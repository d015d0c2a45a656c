-- Each org's own key for each provider, encrypted with AES-256-GCM under a key derived from the
-- Worker secret LESSOR_MASTER_KEY (src/providers/credentials.ts). The key is never stored or
-- returned in the clear; `options` holds settings that are not secret (Lambda's SSH key name).
CREATE TABLE provider_keys (
  org_id        TEXT NOT NULL REFERENCES orgs(id),
  provider      TEXT NOT NULL,
  -- "v1." + base64url(12-byte IV) + "." + base64url(ciphertext and tag); the AES-GCM additional
  -- data is "<org_id>/<provider>", so a row copied to another org or provider does not decrypt.
  ciphertext    TEXT NOT NULL,
  options       TEXT NOT NULL DEFAULT '{}',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  -- The last verification (one read-only call): when, whether it worked, and why not.
  verified_at   INTEGER,
  verified_ok   INTEGER CHECK (verified_ok IN (0, 1)),
  verify_error  TEXT,
  PRIMARY KEY (org_id, provider)
);

-- The catalog refresh reads a provider's market with the most recently verified working key.
CREATE INDEX provider_keys_by_provider ON provider_keys (provider, verified_ok, verified_at);

-- Orphans are found in each provider account lessor rents in: the sim's (''), or an org's.
-- Bookkeeping for one account must never forget another account's orphans.
ALTER TABLE orphans ADD COLUMN account TEXT NOT NULL DEFAULT '';
