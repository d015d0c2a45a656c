-- lessor D1 index, part 14: outbound webhook endpoints (Standard Webhooks). See docs/storage.md
-- and docs/events.md. Deliveries live in each org's OrgEventsObject, not here.

CREATE TABLE webhook_endpoints (
  id                         TEXT PRIMARY KEY,
  org_id                     TEXT NOT NULL,
  url                        TEXT NOT NULL,
  -- JSON array of event types, or ["*"].
  events                     TEXT NOT NULL,
  -- The signing secret, encrypted like a provider key (src/webhooks/secrets.ts); never in the clear.
  secret_ciphertext          TEXT NOT NULL,
  -- After a rotation the previous secret also signs until previous_secret_until.
  previous_secret_ciphertext TEXT,
  previous_secret_until      INTEGER,
  disabled_at                INTEGER,
  disabled_reason            TEXT CHECK (disabled_reason IS NULL OR disabled_reason IN ('gone', 'failing')),
  -- The first failed attempt since the last delivered one; five days of it disables the endpoint.
  failing_since              INTEGER,
  created_at                 INTEGER NOT NULL,
  updated_at                 INTEGER NOT NULL,
  CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL))
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, id);
