-- lessor D1 index, part 22: the leases on a provider that are not released, by a key no transition
-- changes. `leases_provider_live` keyed `state`, so every state change a lease's object wrote
-- through was a further row written there; this index holds `(provider, org_id)` of the rows whose
-- `released_at` is NULL (set once, in the write that says `released`), so a lease writes it twice:
-- with its first row, and when it is released. The reconciler's query of the live machines on a
-- provider names `released_at IS NULL` to use it (src/lease/reaper.ts `liveMachinesQuery`). See
-- docs/storage.md and docs/cost.md.
DROP INDEX leases_provider_live;
CREATE INDEX leases_provider_unreleased ON leases (provider, org_id) WHERE released_at IS NULL;
