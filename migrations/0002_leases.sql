-- lessor D1 index, part 2: the lease index, idempotency records, orphan tracking, sweep locks.
-- The Lease Durable Object is the one writer of a lease; this index is its write-through copy,
-- for lists, searches and the cron backstop. See docs/storage.md.

CREATE TABLE leases (
  id             TEXT PRIMARY KEY,              -- ls_...
  org_id         TEXT NOT NULL REFERENCES orgs(id),
  kind           TEXT NOT NULL CHECK (kind IN ('deployment', 'scratch', 'job')),
  state          TEXT NOT NULL CHECK (state IN ('pending', 'provisioning', 'booting', 'ready', 'stopping',
                                                'stopped', 'starting', 'releasing', 'released')),
  provider       TEXT NOT NULL,
  machine_id     TEXT,
  release_reason TEXT,
  next_deadline  INTEGER,                       -- when the object must act next; null when never
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  version        INTEGER NOT NULL,              -- the object's version this row reflects
  body           TEXT NOT NULL                  -- the lease as listed, JSON
);
CREATE INDEX leases_org ON leases (org_id, id);
CREATE INDEX leases_org_state ON leases (org_id, state, id);
-- The backstop's query: what is due, in deadline order; cost grows with what is due.
CREATE INDEX leases_due ON leases (next_deadline) WHERE next_deadline IS NOT NULL;
CREATE INDEX leases_provider_live ON leases (provider, state);

CREATE TABLE idempotency (
  org_id      TEXT NOT NULL,
  route       TEXT NOT NULL,                    -- e.g. "POST /v1/leases"
  key         TEXT NOT NULL,
  body_hash   TEXT NOT NULL,
  status      INTEGER,                          -- null while the first request is in flight
  response    TEXT,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (org_id, route, key)
);
CREATE INDEX idempotency_age ON idempotency (created_at);

-- Labelled machines no live lease owns, first seen by the reconciler.
CREATE TABLE orphans (
  provider      TEXT NOT NULL,
  machine_id    TEXT NOT NULL,
  label         TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL,
  stopped_at    INTEGER,
  PRIMARY KEY (provider, machine_id)
);

-- One row per sweep: a run holds it until `until`, so overlapping cron runs do not both sweep.
CREATE TABLE sweep_locks (
  name   TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  until  INTEGER NOT NULL
);
