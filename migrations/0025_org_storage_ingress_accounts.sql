-- lessor D1 index, part 25: shared storage bounded per org, and provider webhooks per provider
-- account (issue 28, hardening items 4 and 8). See docs/storage.md, docs/ingress.md and
-- docs/security.md. Times are integer milliseconds since the epoch.

-- An org's account at a provider takes its webhooks under a token of its own, minted by
-- POST /v1/providers/:name/ingress-token and stored as its hex SHA-256 (the token never is);
-- NULL: the account takes none. A delivery finds its account through the unique index.
ALTER TABLE provider_keys ADD COLUMN ingress_token_hash TEXT;
ALTER TABLE provider_keys ADD COLUMN ingress_token_created_at INTEGER;
CREATE UNIQUE INDEX provider_keys_ingress ON provider_keys (ingress_token_hash) WHERE ingress_token_hash IS NOT NULL;

-- Event ids are kept per account ('' the installation's own, the sim's; else the org's id), so one
-- account's ids never make another's deliveries duplicates. The key begins with the account, so a
-- delivery counts its account's ids of the last 24 hours (its cap) through it. The sim's rows are
-- kept as the installation's; the others came in under the installation-wide URL, which no longer
-- takes Vast or RunPod webhooks, and are dropped (they are only hints, and at most a day old).
CREATE TABLE ingress_events_by_account (
  account     TEXT NOT NULL,
  provider    TEXT NOT NULL,
  event_id    TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (account, provider, event_id)
);
INSERT INTO ingress_events_by_account (account, provider, event_id, received_at)
  SELECT '', provider, event_id, received_at FROM ingress_events WHERE provider = 'sim';
DROP TABLE ingress_events;
ALTER TABLE ingress_events_by_account RENAME TO ingress_events;
CREATE INDEX ingress_events_age ON ingress_events (received_at);

-- A revoked API key's row is deleted 30 days after its revocation (src/db/retention.ts), oldest
-- first through this index, which only a revocation writes.
CREATE INDEX api_keys_revoked ON api_keys (revoked_at) WHERE revoked_at IS NOT NULL;
