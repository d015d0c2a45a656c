/** The lease index in D1: the object's write-through copy, for lists and the cron backstop. */
import type { Db } from "../db";
import type { LeaseRecord } from "./state";
import { renderLease } from "./view";

/**
 * Upserts the lease's row unless the index already holds this version or a newer one, so a
 * late, retried write never overwrites a newer one.
 */
export async function writeLeaseIndex(db: Db, l: LeaseRecord, nextDeadline: number | null, now: number): Promise<void> {
  const row = {
    id: l.id,
    org_id: l.org_id,
    kind: l.kind,
    state: l.state,
    provider: l.provider,
    machine_id: l.machine_id,
    release_reason: l.release_reason,
    next_deadline: nextDeadline,
    created_at: l.created_at,
    updated_at: now,
    version: l.version,
    body: JSON.stringify(renderLease(l)),
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
        })
        .where("leases.version", "<=", row.version),
    )
    .execute();
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
