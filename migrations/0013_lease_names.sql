-- lessor D1 index, part 13: lease names. A lease may carry a name, unique among its org's live
-- leases; a released lease frees it. See docs/storage.md.

-- The name a lease was created with; never changes. Lists find leases by it.
ALTER TABLE leases ADD COLUMN name TEXT;
CREATE INDEX leases_org_name ON leases (org_id, name, id) WHERE name IS NOT NULL;

-- Who holds each name: one row per (org, name) while its lease is live. `POST /v1/leases` inserts
-- the row before the lease's object exists, so of two creates with one name exactly one inserts
-- it (src/lease/names.ts).
CREATE TABLE lease_names (
  org_id     TEXT NOT NULL,
  name       TEXT NOT NULL,
  lease_id   TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (org_id, name)
);
CREATE INDEX lease_names_lease ON lease_names (lease_id);

-- The index write that says a lease is released frees its name in the same statement, so no
-- reader ever sees a released lease holding a name, nor a live one without it.
CREATE TRIGGER lease_names_free_on_insert AFTER INSERT ON leases WHEN NEW.state = 'released'
BEGIN
  DELETE FROM lease_names WHERE lease_id = NEW.id;
END;

CREATE TRIGGER lease_names_free_on_update AFTER UPDATE OF state ON leases WHEN NEW.state = 'released'
BEGIN
  DELETE FROM lease_names WHERE lease_id = NEW.id;
END;
