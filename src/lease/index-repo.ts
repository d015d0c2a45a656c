/** The lease index in D1: the object's write-through copy, for lists and the cron backstop. */
import { billedFrom, estimateOf } from "../billing/accrual";
import type { Db } from "../db";
import type { LeaseRecord } from "./state";
import { renderLease } from "./view";

/**
 * Upserts the lease's row unless the index already holds this version or a newer one, so a
 * late, retried write never overwrites a newer one.
 */
export async function writeLeaseIndex(db: Db, l: LeaseRecord, nextDeadline: number | null, now: number): Promise<void> {
  await writeLeaseMachines(db, l, now);
  const estimate = estimateOf(l.billing.segments, l.released_at ?? now);
  const billing = {
    billing_status: l.billing.status,
    estimate_micro_usd: estimate.total,
    billed_from: billedFrom(l.billing.segments),
    released_at: l.released_at,
    accrual: JSON.stringify(l.billing.segments),
  };
  const row = {
    ...billing,
    gpu_class: l.offers[l.offer_index]?.gpu ?? l.offers[0]?.gpu ?? null,
    id: l.id,
    org_id: l.org_id,
    kind: l.kind,
    state: l.state,
    provider: l.provider,
    machine_id: l.machine_id,
    release_reason: l.release_reason,
    // Written once: it never changes, and it keeps the quote from retention (src/db/retention.ts).
    quote_id: l.quote_id,
    // Written once, like the quote: a name never changes (its hold is in lease_names, src/lease/names.ts).
    name: l.name ?? null,
    next_deadline: nextDeadline,
    created_at: l.created_at,
    updated_at: now,
    version: l.version,
    body: JSON.stringify(renderLease(l, now)),
  };
  await db
    .insertInto("leases")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("id")
        .doUpdateSet({
          state: row.state,
          machine_id: row.machine_id,
          release_reason: row.release_reason,
          next_deadline: row.next_deadline,
          updated_at: row.updated_at,
          version: row.version,
          body: row.body,
          ...billing,
          gpu_class: row.gpu_class,
        })
        .where("leases.version", "<=", row.version),
    )
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

/** Leases whose next deadline has passed: an index range scan, cost proportional to what is due. */
export async function dueLeases(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom("leases")
    .select("id")
    .where("next_deadline", "is not", null)
    .where("next_deadline", "<=", now)
    .orderBy("next_deadline")
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
