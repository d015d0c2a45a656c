-- lessor D1 index, part 19: deployments. A deployment is a model served under a name: one row per
-- (org, name), pointing at the lease that runs its model server now (src/deployments/). See
-- docs/storage.md and docs/deployments.md.
CREATE TABLE deployments (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  name        TEXT NOT NULL,
  model       TEXT NOT NULL,
  -- JSON of what the PUT asked for ({model, spec, policy, image, engine_args}); the lease is made from it.
  config      TEXT NOT NULL,
  -- SHA-256 of the model, spec, image and engine arguments: a PUT with another is `config_changed`.
  fingerprint TEXT NOT NULL,
  -- AES-GCM ciphertext of the deployment's api_key (src/providers/credentials.ts), never the key.
  api_key     TEXT NOT NULL,
  -- The lease serving it now, chosen before that lease exists: of concurrent PUTs, the one whose
  -- insert or compare-and-swap of this column wins is the one that creates it.
  lease_id    TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX deployments_org_name ON deployments (org_id, name);
CREATE INDEX deployments_lease ON deployments (lease_id);
