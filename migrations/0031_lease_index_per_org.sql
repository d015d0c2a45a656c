-- The per-org lease index moves to each org's Durable Object (src/orgs/lease-index.ts,
-- docs/scale.md "Moving an installation"): lists, names and deadlines are read there. These
-- indexes served them here, and each was a further row written by every change of what it keeps.
-- `leases_org (org_id, id)` stays: written once per lease, it is how an org's object copies its
-- rows from here the first time it is asked for them.
DROP INDEX IF EXISTS leases_org_state;
DROP INDEX IF EXISTS leases_org_name;
DROP INDEX IF EXISTS leases_due;
