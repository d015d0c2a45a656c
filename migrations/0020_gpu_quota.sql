-- lessor D1 index, part 19: an org's GPU quota and what each lease holds under it.
-- See docs/storage.md and docs/billing.md "GPU quota and preemption".
CREATE TABLE gpu_quotas (
  org_id          TEXT PRIMARY KEY,
  gpus            INTEGER NOT NULL CHECK (gpus >= 0),
  -- A kind's own cap within the total; null: only the total caps it.
  deployment_gpus INTEGER CHECK (deployment_gpus IS NULL OR deployment_gpus >= 0),
  job_gpus        INTEGER CHECK (job_gpus IS NULL OR job_gpus >= 0),
  scratch_gpus    INTEGER CHECK (scratch_gpus IS NULL OR scratch_gpus >= 0),
  updated_at      INTEGER NOT NULL
);

-- One row a lease, written by its create's admission. It counts while its lease is live in the
-- index (or, before the lease reaches the index, for the pending window), unless a deployment
-- displaced it (preempted_by: that lease's id).
CREATE TABLE gpu_holds (
  lease_id     TEXT PRIMARY KEY,
  org_id       TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('deployment', 'scratch', 'job')),
  gpus         INTEGER NOT NULL CHECK (gpus >= 0),
  created_at   INTEGER NOT NULL,
  preempted_by TEXT
);
CREATE INDEX gpu_holds_org ON gpu_holds (org_id, preempted_by);

-- The leases live when this migration runs hold what their offer has.
INSERT INTO gpu_holds (lease_id, org_id, kind, gpus, created_at)
SELECT id, org_id, kind, COALESCE(json_extract(body, '$.offer.gpu_count'), 0), created_at FROM leases WHERE state != 'released';
