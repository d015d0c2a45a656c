/**
 * The org's GPU quota in D1 (docs/storage.md `gpu_quotas`, `gpu_holds`) and the admission that
 * holds a new lease's GPUs against it, race-free like the budget's (src/billing/budget.ts).
 *
 * A lease's hold is written by its create before its object exists. It counts while the index
 * shows the lease live (a lease not yet in the index counts for PENDING_MS, as a budget reservation
 * does), so it ends when the lease is released, with no write of its own; a hold a deployment
 * displaced (`preempted_by`) stops counting at once.
 *
 * The rule (who is displaced, whether it fits) is src/lease/quota.ts, on a read of the holds. The
 * write is one D1 batch (one transaction): the new hold is inserted only if, counted in the same
 * statement, every lease the rule chose is still held and the new lease fits once they are gone;
 * only then are they marked displaced. Two creates can never both pass the quota: the later counts
 * the earlier's row. A batch that lands nothing (the holds changed since the read) is planned again
 * on a fresh read.
 */
import type { Db } from "../db";
import { conflict } from "../errors";
import { PENDING_MS } from "../billing/budget";
import { LEASE_KINDS, type LeaseKind } from "./policy";
import { quotaMessage, quotaVerdict, type GpuAsk, type GpuHold, type GpuQuota, type QuotaVerdict } from "./quota";
import { LIVE_STATES, sqlList } from "./state";

/** How many times admission reads and tries again when the holds changed under it. */
const ADMISSION_TRIES = 3;

/** A hold that counts, as `h`. ?1 org, ?2 the time before which a lease-less hold no longer counts. */
const COUNTED = `h.org_id = ?1 AND h.preempted_by IS NULL AND (
    EXISTS (SELECT 1 FROM leases l WHERE l.id = h.lease_id AND l.state IN ${sqlList(LIVE_STATES)})
    OR (h.created_at > ?2 AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.id = h.lease_id)))`;

const VICTIMS = `(SELECT value FROM json_each(?5))`;

/** Kind ?3's own cap in the quota `q`; null: none. */
const KIND_CAP = `(CASE ?3 WHEN 'deployment' THEN q.deployment_gpus WHEN 'job' THEN q.job_gpus ELSE q.scratch_gpus END)`;

/**
 * ?1 org, ?2 pending cutoff, ?3 kind, ?4 GPUs, ?5 the leases to displace (JSON array of ids), ?6
 * the new lease, ?7 now. Inserts the hold, or nothing. A lease without GPUs always fits, as in the
 * rule, even under a quota lowered below what is held.
 */
const HOLD = `
  INSERT INTO gpu_holds (lease_id, org_id, kind, gpus, created_at)
  SELECT ?6, ?1, ?3, ?4, ?7
  WHERE (SELECT COUNT(*) FROM gpu_holds h WHERE ${COUNTED} AND h.kind = 'scratch' AND h.lease_id IN ${VICTIMS}) = json_array_length(?5)
    AND (?4 = 0 OR NOT EXISTS (
      SELECT 1 FROM gpu_quotas q WHERE q.org_id = ?1 AND (
        (SELECT COALESCE(SUM(h.gpus), 0) FROM gpu_holds h WHERE ${COUNTED} AND h.lease_id NOT IN ${VICTIMS}) + ?4 > q.gpus
        OR (${KIND_CAP} IS NOT NULL AND (SELECT COALESCE(SUM(h.gpus), 0) FROM gpu_holds h WHERE ${COUNTED} AND h.kind = ?3) + ?4 > ${KIND_CAP})
      )
    ))`;

/** ?5 the leases to displace, ?6 the new lease: marked only when the new lease's hold landed. */
const DISPLACE = `
  UPDATE gpu_holds SET preempted_by = ?6
  WHERE lease_id IN ${VICTIMS} AND preempted_by IS NULL AND EXISTS (SELECT 1 FROM gpu_holds n WHERE n.lease_id = ?6)`;

export interface StoredQuota extends GpuQuota {
  updated_at: number;
}

export async function getGpuQuota(db: Db, orgId: string): Promise<StoredQuota | null> {
  const row = await db.selectFrom("gpu_quotas").selectAll().where("org_id", "=", orgId).executeTakeFirst();
  if (!row) return null;
  const per_kind: GpuQuota["per_kind"] = {};
  for (const kind of LEASE_KINDS) {
    const cap = row[`${kind}_gpus`];
    if (cap !== null) per_kind[kind] = cap;
  }
  return { gpus: row.gpus, per_kind, updated_at: row.updated_at };
}

/** Replaces the org's quota (kinds left out have no cap of their own); null removes it. */
export async function putGpuQuota(db: Db, orgId: string, quota: GpuQuota | null, now: number): Promise<void> {
  if (quota === null) {
    await db.deleteFrom("gpu_quotas").where("org_id", "=", orgId).execute();
    return;
  }
  const row = {
    gpus: quota.gpus,
    deployment_gpus: quota.per_kind.deployment ?? null,
    job_gpus: quota.per_kind.job ?? null,
    scratch_gpus: quota.per_kind.scratch ?? null,
    updated_at: now,
  };
  await db
    .insertInto("gpu_quotas")
    .values({ org_id: orgId, ...row })
    .onConflict((oc) => oc.column("org_id").doUpdateSet(row))
    .execute();
}

/** What the org's live leases hold now, each lease once. */
export async function gpuHolds(d1: D1Database, orgId: string, now: number): Promise<GpuHold[]> {
  const { results } = await d1
    .prepare(`SELECT h.lease_id, h.kind, h.gpus, h.created_at FROM gpu_holds h WHERE ${COUNTED}`)
    .bind(orgId, now - PENDING_MS)
    .all<GpuHold>();
  return results;
}

/**
 * Holds `ask` for lease `lease_id` under the org's quota, displacing what the rule chooses, and
 * answers the leases displaced (their objects are yet to be told); or refuses with 409
 * `quota_exceeded` and writes nothing.
 */
export async function holdGpus(d1: D1Database, db: Db, lease: { lease_id: string; org_id: string; ask: GpuAsk }, now: number): Promise<GpuHold[]> {
  const { lease_id, org_id, ask } = lease;
  for (let attempt = 1; ; attempt++) {
    const [quota, held] = await Promise.all([getGpuQuota(db, org_id), gpuHolds(d1, org_id, now)]);
    const verdict = quotaVerdict(quota, held, ask);
    if (!verdict.ok) throw conflict("quota_exceeded", quotaMessage(verdict, ask.kind), { quota: verdict.cap, limit: verdict.limit, held: verdict.held, requested: verdict.requested });
    const victims = JSON.stringify(verdict.preempt.map((h) => h.lease_id));
    const args = [org_id, now - PENDING_MS, ask.kind, ask.gpus, victims, lease_id, now];
    // DISPLACE names ?5 and ?6 only, so it takes the first six.
    const [inserted] = await d1.batch([d1.prepare(HOLD).bind(...args), d1.prepare(DISPLACE).bind(...args.slice(0, 6))]);
    if ((inserted!.meta.changes ?? 0) > 0) return verdict.preempt;
    if (attempt === ADMISSION_TRIES) {
      throw conflict("quota_exceeded", `the org's GPU holds kept changing while this ${ask.kind} lease was admitted; try again`, { quota: "gpus", requested: ask.gpus });
    }
  }
}

/**
 * ?1 org, ?2 pending cutoff, ?3 kind, ?4 GPUs, ?5 the lease, ?6 now. Raises the lease's own hold to
 * ?4 GPUs (or makes it, for a lease that has none) only if the org's other holds and ?4 fit the
 * quota, counted in the same statement, as HOLD counts; it never lowers one.
 */
const GROW = `
  INSERT INTO gpu_holds (lease_id, org_id, kind, gpus, created_at)
  SELECT ?5, ?1, ?3, ?4, ?6
  WHERE NOT EXISTS (
      SELECT 1 FROM gpu_quotas q WHERE q.org_id = ?1 AND (
        (SELECT COALESCE(SUM(h.gpus), 0) FROM gpu_holds h WHERE ${COUNTED} AND h.lease_id != ?5) + ?4 > q.gpus
        OR (${KIND_CAP} IS NOT NULL AND (SELECT COALESCE(SUM(h.gpus), 0) FROM gpu_holds h WHERE ${COUNTED} AND h.kind = ?3 AND h.lease_id != ?5) + ?4 > ${KIND_CAP})
      ))
  ON CONFLICT (lease_id) DO UPDATE SET gpus = excluded.gpus WHERE gpu_holds.gpus < excluded.gpus`;

/**
 * Raises a live lease's hold to `gpus` before it rents a fallback host with more GPUs than it holds
 * (src/lease/quota.ts: nothing is displaced for it). null when held; else the refusal, with what
 * the org holds without this lease, and nothing written.
 */
export async function growGpuHold(d1: D1Database, db: Db, lease: { lease_id: string; org_id: string; kind: LeaseKind; gpus: number }, now: number): Promise<Extract<QuotaVerdict, { ok: false }> | null> {
  const { lease_id, org_id, kind, gpus } = lease;
  for (let attempt = 1; ; attempt++) {
    const [quota, held] = await Promise.all([getGpuQuota(db, org_id), gpuHolds(d1, org_id, now)]);
    const verdict = quotaVerdict(quota, held.filter((h) => h.lease_id !== lease_id), { kind, gpus }, { displace: false });
    if (!verdict.ok) return verdict;
    const written = await d1.prepare(GROW).bind(org_id, now - PENDING_MS, kind, gpus, lease_id, now).run();
    if ((written.meta.changes ?? 0) > 0) return null;
    const row = await db.selectFrom("gpu_holds").select("gpus").where("lease_id", "=", lease_id).executeTakeFirst();
    if (row && row.gpus >= gpus) return null;
    // The holds changed between the read and the write: read again, and at last refuse.
    if (attempt === ADMISSION_TRIES) return { ok: false, cap: "gpus", limit: quota?.gpus ?? 0, held: held.reduce((n, h) => n + (h.lease_id === lease_id ? 0 : h.gpus), 0), requested: gpus };
  }
}

/**
 * Displaced leases that could not be told to release (their objects did not answer) hold their
 * GPUs again: a lease that goes on running is never left uncounted. Only holds that `by` displaced.
 */
export async function restoreGpuHolds(db: Db, leaseIds: readonly string[], by: string): Promise<void> {
  if (leaseIds.length === 0) return;
  await db.updateTable("gpu_holds").set({ preempted_by: null }).where("lease_id", "in", [...leaseIds]).where("preempted_by", "=", by).execute();
}

/** Gives back the hold of a lease that was never made (its create failed after admission). */
export async function dropGpuHold(db: Db, leaseId: string): Promise<void> {
  await db.deleteFrom("gpu_holds").where("lease_id", "=", leaseId).execute();
}
