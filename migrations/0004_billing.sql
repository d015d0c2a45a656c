-- lessor D1 index, part 4: billing (issue 6). Accrual on the lease index, the machines each lease
-- held, the providers' billing records, receipts, budgets and their reservations.
-- Money is integer micro-dollars (a millionth of a dollar) in every column named *_micro_usd, so
-- sums are exact to the cent. Times are integer milliseconds since the epoch. See docs/storage.md.

-- The lease index carries the lease's billing, written through by its object like the rest.
ALTER TABLE leases ADD COLUMN billing_status TEXT NOT NULL DEFAULT 'accruing'
  CHECK (billing_status IN ('accruing', 'awaiting_windows', 'settled', 'disputed', 'none'));
ALTER TABLE leases ADD COLUMN estimate_micro_usd INTEGER NOT NULL DEFAULT 0;  -- the estimate as of updated_at (final once released)
ALTER TABLE leases ADD COLUMN accrual TEXT NOT NULL DEFAULT '[]';             -- the estimate's segments, JSON
ALTER TABLE leases ADD COLUMN billed_from INTEGER;                            -- when it first billed; null: never
ALTER TABLE leases ADD COLUMN released_at INTEGER;
ALTER TABLE leases ADD COLUMN gpu_class TEXT;
-- The reconciler's settle step: released leases waiting for their windows.
CREATE INDEX leases_awaiting ON leases (provider, released_at) WHERE billing_status = 'awaiting_windows';
-- Usage: an org's leases that billed, by when they began.
CREATE INDEX leases_org_billed ON leases (org_id, billed_from) WHERE billed_from IS NOT NULL;

-- Every machine a lease ever held: billing records are attributed to leases by machine.
CREATE TABLE lease_machines (
  provider    TEXT NOT NULL,
  machine_id  TEXT NOT NULL,
  lease_id    TEXT NOT NULL,
  org_id      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (provider, machine_id)
);

-- Provider-authoritative billing records, stored once by the provider's own record identity.
CREATE TABLE billing_records (
  provider          TEXT NOT NULL,
  record_id         TEXT NOT NULL,                -- the provider's identity for the record
  account           TEXT NOT NULL DEFAULT '',     -- the provider account it was fetched from ('' installation-wide)
  machine_id        TEXT NOT NULL,
  window_start      INTEGER NOT NULL,
  window_end        INTEGER NOT NULL,
  amount_micro_usd  INTEGER NOT NULL,
  components        TEXT NOT NULL DEFAULT '{}',   -- the provider's parts of the amount, JSON
  lease_id          TEXT,                         -- null: no lease owns the machine (unattributed)
  org_id            TEXT,
  fetched_at        INTEGER NOT NULL,             -- when it was first stored
  PRIMARY KEY (provider, record_id),
  CHECK (window_end > window_start)
);
CREATE INDEX billing_records_lease ON billing_records (lease_id, window_start) WHERE lease_id IS NOT NULL;
CREATE INDEX billing_records_org ON billing_records (org_id, window_start) WHERE org_id IS NOT NULL;
CREATE INDEX billing_records_unattributed ON billing_records (provider, window_start) WHERE lease_id IS NULL;
CREATE INDEX billing_records_fetched ON billing_records (provider, fetched_at);

-- Per provider account: every record of a window ending at or before complete_through is stored.
CREATE TABLE billing_cursors (
  provider          TEXT NOT NULL,
  account           TEXT NOT NULL DEFAULT '',
  complete_through  INTEGER NOT NULL,
  fetched_at        INTEGER NOT NULL,
  PRIMARY KEY (provider, account)
);

-- A lease's final cost, from the provider's records for closed windows. Written once, never changed.
CREATE TABLE receipts (
  id                  TEXT PRIMARY KEY,           -- rc_...
  org_id              TEXT NOT NULL,
  lease_id            TEXT NOT NULL UNIQUE,
  provider            TEXT NOT NULL,
  gpu_class           TEXT,
  status              TEXT NOT NULL CHECK (status IN ('settled', 'disputed')),
  actual_micro_usd    INTEGER NOT NULL,
  estimate_micro_usd  INTEGER NOT NULL,
  components          TEXT NOT NULL,              -- sums of the records' parts, JSON
  windows             TEXT NOT NULL,              -- every record: id, window, amount, JSON
  billed_from         INTEGER,                    -- the lease's first billed moment
  released_at         INTEGER NOT NULL,
  created_at          INTEGER NOT NULL
);
CREATE INDEX receipts_org ON receipts (org_id, id);
-- Guarantee 7: a settled receipt never changes.
CREATE TRIGGER receipts_never_change BEFORE UPDATE ON receipts
BEGIN
  SELECT RAISE(ABORT, 'a receipt never changes');
END;

-- An org's caps, in micro-dollars; null: no cap.
CREATE TABLE budgets (
  org_id                       TEXT PRIMARY KEY REFERENCES orgs(id),
  monthly_micro_usd            INTEGER CHECK (monthly_micro_usd IS NULL OR monthly_micro_usd > 0),
  concurrent_hourly_micro_usd  INTEGER CHECK (concurrent_hourly_micro_usd IS NULL OR concurrent_hourly_micro_usd > 0),
  updated_at                   INTEGER NOT NULL
);

-- What each lease was admitted with: its cost ceiling and hourly rate, counted against the caps.
-- Written by one conditional INSERT at admission, so two concurrent creates cannot both pass a cap.
CREATE TABLE budget_reservations (
  lease_id            TEXT PRIMARY KEY,
  org_id              TEXT NOT NULL,
  month               TEXT NOT NULL,              -- 'YYYY-MM' (UTC) of admission
  ceiling_micro_usd   INTEGER,                    -- null: the lease has no cost ceiling
  hourly_micro_usd    INTEGER NOT NULL,
  created_at          INTEGER NOT NULL
);
CREATE INDEX budget_reservations_month ON budget_reservations (org_id, month);
CREATE INDEX budget_reservations_recent ON budget_reservations (org_id, created_at);
