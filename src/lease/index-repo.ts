/**
 * What a lease's object writes through about itself (docs/scale.md, docs/storage.md): its row of
 * its org's lease index, in the org's object (src/orgs/lease-index.ts: the list, the listed body,
 * the deadline the backstop pokes it at), on every change the index must show; and its row of the
 * D1 `leases` table, which keeps what is global (provider, machine, state, billing, for the
 * reconciler, ingress, billing and the caps), only when one of those columns changes.
 */
import { billedFrom, estimateOf } from "../billing/accrual";
import type { Db } from "../db";
import type { IndexFacts, IndexWrite } from "./decide";
import type { LeaseRecord } from "./state";
import type { OrgLeaseRow } from "../orgs/lease-index";
import { renderLease } from "./view";

/** The row's columns that follow the lease (decide.ts `INDEX_COLUMNS`). */
function indexColumns(l: LeaseRecord) {
  return {
    state: l.state,
    machine_id: l.machine_id,
    release_reason: l.release_reason,
    billing_status: l.billing.status,
    billed_from: billedFrom(l.billing.segments),
    released_at: l.released_at,
    gpu_class: l.offers[l.offer_index]?.gpu ?? l.offers[0]?.gpu ?? null,
    accrual: JSON.stringify(l.billing.segments),
  } satisfies IndexFacts["columns"];
}

/** What the index should hold of `l` now, for decide.ts `indexWrite`. */
export async function indexFacts(l: LeaseRecord, nextDeadline: number | null): Promise<IndexFacts> {
  // Activity moves often and the listed body shows at most the user's (throttled, decide.ts
  // `INDEX_ACTIVITY_MS`): neither it nor the machine's own word is a change the index must take.
  const rest = JSON.stringify({ ...l, version: 0, last_activity_at: null, machine_activity_at: null });
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(rest)));
  return {
    columns: indexColumns(l),
    next_deadline: nextDeadline,
    last_activity_at: l.last_activity_at,
    record: btoa(String.fromCharCode(...digest)),
  };
}

/** Whether `write` changes the D1 row: a column it holds changed, or it may not have the lease at all. */
export function writesD1(write: Extract<IndexWrite, { write: true }>): boolean {
  return write.columns === "all" || write.columns.length > 0;
}

/** The lease's row of its org's index (src/orgs/lease-index.ts), as `write` leaves it. */
export function orgIndexRow(l: LeaseRecord, write: Extract<IndexWrite, { write: true }>, now: number): OrgLeaseRow {
  return {
    id: l.id,
    state: l.state,
    kind: l.kind,
    name: l.name ?? null,
    version: l.version,
    next_deadline: write.holds.next_deadline,
    created_at: l.created_at,
    body: JSON.stringify(renderLease(l, now)),
  };
}

/**
 * Writes the D1 row as `write` (decide.ts `indexWrite`) names it: the whole row when D1 may not
 * have it, else only the columns that changed, beside the body, version and estimate. Never
 * overwrites a newer version (a late, retried write). Called only when `writesD1(write)`: a change
 * of the deadline, the activity or the listed body alone goes to the org's index only.
 */
export async function writeLeaseIndex(db: Db, l: LeaseRecord, write: Extract<IndexWrite, { write: true }>, now: number): Promise<void> {
  await writeLeaseMachines(db, l, now);
  const columns = indexColumns(l);
  const always = {
    updated_at: now,
    version: l.version,
    body: JSON.stringify(renderLease(l, now)),
    estimate_micro_usd: estimateOf(l.billing.segments, l.released_at ?? now).total,
  };
  const row = {
    ...columns,
    ...always,
    id: l.id,
    org_id: l.org_id,
    kind: l.kind,
    provider: l.provider,
    // Written once: it never changes, and it keeps the quote from retention (src/db/retention.ts).
    quote_id: l.quote_id,
    // Written once, like the quote: a name never changes (its hold is in lease_names, src/lease/names.ts).
    name: l.name ?? null,
    // The deadline lives in the org's index; D1's column is left empty (it has no index now).
    next_deadline: null,
    created_at: l.created_at,
  };
  // Only what changed: every column set here that a secondary index holds is a further row written.
  const changed: Partial<typeof columns> = write.columns === "all" ? columns : Object.fromEntries(write.columns.map((c) => [c, columns[c]]));
  const set = { ...changed, ...always };
  await db
    .insertInto("leases")
    .values(row)
    .onConflict((oc) => oc.column("id").doUpdateSet(set).where("leases.version", "<=", row.version))
    .execute();
}

/**
 * Machines already written to `lease_machines`, per lease, in this isolate: the rows are written
 * once, not on every transition. An isolate that forgets writes them again (the insert ignores
 * what is there).
 */
const machinesWritten = new Map<string, number>();
const MACHINES_MEMO_MAX = 10_000;

/**
 * Every machine the lease ever held, so that the billing reconciler attributes the provider's
 * records to it. Written before the lease's row: when the index says a lease is released, every
 * machine it held is already here.
 */
async function writeLeaseMachines(db: Db, l: LeaseRecord, now: number): Promise<void> {
  const written = machinesWritten.get(l.id) ?? 0;
  // Five parameters a row, under D1's 100 a statement.
  for (let i = written > l.machine_ids.length ? 0 : written; i < l.machine_ids.length; i += 19) {
    await db
      .insertInto("lease_machines")
      .values(l.machine_ids.slice(i, i + 19).map((machine_id) => ({ provider: l.provider, machine_id, lease_id: l.id, org_id: l.org_id, created_at: now })))
      .onConflict((oc) => oc.columns(["provider", "machine_id"]).doNothing())
      .execute();
  }
  if (l.state === "released") machinesWritten.delete(l.id);
  else {
    // Objects evicted before release leave their entry; forgetting them all costs one rewrite each.
    if (machinesWritten.size >= MACHINES_MEMO_MAX) machinesWritten.clear();
    machinesWritten.set(l.id, l.machine_ids.length);
  }
}
