-- lessor D1 index, part 8: budget reservations by month (issue 10, "Money" 1). A lease's
-- reservation is its worst-case cost split by the UTC month it would accrue in: one row per
-- (lease, month), rewritten by one conditional statement whenever an action raises the lease's
-- worst case (src/billing/budget.ts). See docs/storage.md.

ALTER TABLE budget_reservations RENAME TO budget_reservations_0004;

CREATE TABLE budget_reservations (
  lease_id            TEXT NOT NULL,
  org_id              TEXT NOT NULL,
  month               TEXT NOT NULL,              -- 'YYYY-MM' (UTC) the amount would accrue in
  ceiling_micro_usd   INTEGER,                    -- the lease's worst case in the month; null: no ceiling; once released, what it accrued there
  hourly_micro_usd    INTEGER NOT NULL,           -- the lease's rate (the same on each of its rows)
  created_at          INTEGER NOT NULL,
  PRIMARY KEY (lease_id, month)
);

-- Each old reservation held the whole ceiling in the month of admission: it stays there.
INSERT INTO budget_reservations (lease_id, org_id, month, ceiling_micro_usd, hourly_micro_usd, created_at)
  SELECT lease_id, org_id, month, ceiling_micro_usd, hourly_micro_usd, created_at FROM budget_reservations_0004;

-- A released lease's row says what it accrued (its final estimate), as its object writes from now on.
UPDATE budget_reservations
  SET ceiling_micro_usd = (SELECT l.estimate_micro_usd FROM leases l WHERE l.id = budget_reservations.lease_id)
  WHERE lease_id IN (SELECT id FROM leases WHERE state = 'released');

DROP TABLE budget_reservations_0004;

CREATE INDEX budget_reservations_month ON budget_reservations (org_id, month);
CREATE INDEX budget_reservations_recent ON budget_reservations (org_id, created_at);
