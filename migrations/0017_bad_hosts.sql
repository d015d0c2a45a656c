-- lessor D1 index, part 16: hosts that failed one of an org's leases (a boot that timed out, a
-- machine in error, a machine that vanished), left out of the org's selections until `until`.
-- See docs/storage.md and docs/design.md "Placement".
CREATE TABLE bad_hosts (
  org_id     TEXT NOT NULL,
  provider   TEXT NOT NULL,
  host_id    TEXT NOT NULL,
  reason     TEXT NOT NULL CHECK (reason IN ('boot_timeout', 'host_failed', 'provider_lost')),
  -- The lease that saw it fail last.
  lease_id   TEXT NOT NULL,
  until      INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (org_id, provider, host_id)
);
-- Retention deletes the expired ones oldest first (src/db/retention.ts).
CREATE INDEX bad_hosts_until ON bad_hosts (until);
