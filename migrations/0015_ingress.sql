-- lessor D1 index, part 15: provider webhook ingress (POST /v1/ingress/:provider/:token). See
-- docs/storage.md and docs/ingress.md. Times are integer milliseconds since the epoch.

-- Each signed event id a provider sent, kept 24 hours (src/db/retention.ts): a delivery of the
-- same id again in that time is answered 200 and does nothing.
CREATE TABLE ingress_events (
  provider    TEXT NOT NULL,
  event_id    TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (provider, event_id)
);
CREATE INDEX ingress_events_age ON ingress_events (received_at);

-- An event names a provider's machine; its lease is found through this index.
CREATE INDEX leases_machine ON leases (provider, machine_id) WHERE machine_id IS NOT NULL;
