-- lessor D1 index, part 26: how long what a deployment's machine reports of itself (requests in
-- its model server's metrics, or metrics it cannot read) may keep one of the org's leases in use,
-- per session, in ms (src/orgs/settings.ts `machine_activity_max`). NULL: the default, 24 hours.
-- See docs/storage.md and docs/deployments.md "Activity".
ALTER TABLE orgs ADD COLUMN machine_activity_max_ms INTEGER CHECK (machine_activity_max_ms IS NULL OR machine_activity_max_ms > 0);
