/**
 * Budgets: an org's monthly cap and its cap on concurrent hourly spend, and admission
 * against them. Every action that can raise a lease's worst-case cost is
 * admitted like a create, by the same statement.
 *
 * Every lease holds a reservation: its hourly rate, and its worst-case cost split by the UTC month
 * it would accrue in (src/billing/ceiling.ts: what it accrued so far plus its rate until its hard
 * end), one row per (lease, month). The reservation is written by one conditional statement
 * (`RESERVE`: an INSERT ... ON CONFLICT DO UPDATE of every month row of the lease) that lands only
 * if, in every month it asks for, the org's other commitments plus the ask stay within the
 * monthly cap, and the org's other live leases' rates plus this rate stay within the concurrent
 * cap, counted in the same statement. D1 runs one statement at a time, so two admissions can never
 * both pass a cap: the second counts the first's rows. Admission at `POST /v1/leases` writes it
 * before the lease's object exists (a refused lease rents nothing); `extend`, `start` and renting
 * a fallback or replacement host write it from inside the lease's object, before the change is
 * saved (a refused action changes nothing).
 *
 * Why rows per month: a cost counts in the month it accrues in, not the month the lease was
 * admitted in. A lease admitted on the 31st with a 2-day ceiling holds part of it in each month,
 * and one that runs across the boundary is not counted twice.
 *
 * What counts against the monthly cap, for month M:
 * - a live lease: its row for M (its worst case there);
 * - a released lease: its row for M, which its object rewrites at release to what it accrued in M
 *   (settleReservation); once the receipt is written, the receipt's amount is spread over the
 *   months in proportion (in the month of release when the estimate was zero);
 * - a reservation whose lease has not reached the index within PENDING_MS (its create failed)
 *   stops counting.
 * Concurrent hourly: the rate of every lease not yet released. A stopped lease keeps its place.
 */
import type { Db } from "../db";
import { capReached, CREATION_WINDOW_MS, retryAfterS } from "../db/creation-caps";
import { ApiError } from "../errors";
import { idFloor } from "../ids";
import { cappedDurationMs, type Policy } from "../lease/policy";
import { LIVE_STATES as LIVE, sqlList } from "../lease/state";
import { monthOf, worstCase, type Reservation } from "./ceiling";
import { HOUR_MS, microsToUsd, usdToMicros } from "./money";

export { monthOf };

/** How long a reservation counts before its lease appears in the index. */
export const PENDING_MS = 10 * 60_000;

const LIVE_STATES = sqlList(LIVE);

/**
 * What the org has committed in the month `month` (an SQL expression), leaving out lease ?1 (null:
 * none). ?2 org, ?7 the time before which a lease-less reservation no longer counts.
 */
const monthCommitted = (month: string) => `
  SELECT COALESCE(SUM(CASE
      WHEN l.id IS NULL THEN (CASE WHEN r.created_at > ?7 THEN COALESCE(r.ceiling_micro_usd, 0) ELSE 0 END)
      WHEN l.state = 'released' AND rc.actual_micro_usd IS NOT NULL THEN (CASE
        WHEN l.estimate_micro_usd > 0 THEN COALESCE(r.ceiling_micro_usd, 0) * rc.actual_micro_usd / l.estimate_micro_usd
        WHEN r.month = strftime('%Y-%m', l.released_at / 1000, 'unixepoch') THEN rc.actual_micro_usd
        ELSE 0 END)
      ELSE COALESCE(r.ceiling_micro_usd, 0)
    END), 0)
  FROM budget_reservations r
  LEFT JOIN leases l ON l.id = r.lease_id
  LEFT JOIN receipts rc ON rc.lease_id = r.lease_id
  WHERE r.org_id = ?2 AND r.month = ${month} AND r.lease_id IS NOT ?1`;

/** The org's leases' commitments (monthCommitted) and its volumes' (volumesCommitted) in `month`. */
const orgCommitted = (month: string) => `(${monthCommitted(month)}) + (${volumesCommitted(month)})`;

/**
 * A UTC month's first instant and the next month's, ms, from its 'YYYY-MM' (an SQL expression).
 * Computed once in a FROM-clause subquery (volumesCommitted): SQLite caps an expression's depth at
 * 100, and RESERVE already nests deep.
 */
const monthStart = (month: string) => `(CAST(strftime('%s', ${month} || '-01') AS INTEGER) * 1000)`;
const monthEnd = (month: string) => `(CAST(strftime('%s', ${month} || '-01', '+1 month') AS INTEGER) * 1000)`;
/** Milliseconds in the month a GB-month price is spread over (src/volumes/volumes.ts HOURS_PER_MONTH, 730 h). */
export const VOLUME_MONTH_MS = 730 * 3_600_000;

/**
 * What the org's volumes commit in month `month` (an SQL expression), ?2 org (migrations/0029
 * `volume_bills`): a volume bills for its size from its creation to its deletion, mounted or not,
 * so a volume that still lives holds the rest of the month (its worst case: it may live to the
 * month's end), and one deleted what it billed there. Where a receipt covers the month, its actual
 * amount counts instead. A volume whose provider states no price counts only its receipts.
 */
const volumesCommitted = (month: string) => `
  SELECT COALESCE(SUM(COALESCE(
    (SELECT SUM(vr.actual_micro_usd) FROM receipts vr WHERE vr.volume_id = v.volume_id AND vr.billed_from >= mb.ms AND vr.billed_from < mb.me),
    CAST(ROUND(v.gb_month_micro_usd * 1.0 * v.size_gb * (MIN(COALESCE(v.deleted_at, mb.me), mb.me) - MAX(v.billed_from, mb.ms)) / ${VOLUME_MONTH_MS}.0) AS INTEGER)
  )), 0)
  FROM volume_bills v JOIN (SELECT ${monthStart(month)} AS ms, ${monthEnd(month)} AS me) mb
  WHERE v.org_id = ?2 AND v.billed_from < mb.me AND (v.deleted_at IS NULL OR v.deleted_at > mb.ms)`;

/** What the org's live volumes bill an hour, ?2 org: they count against the concurrent hourly cap like live leases. */
const VOLUMES_HOURLY = `
  (SELECT COALESCE(SUM(CAST(ROUND(v.gb_month_micro_usd * 1.0 * v.size_gb / 730) AS INTEGER)), 0) FROM volume_bills v
   WHERE v.org_id = ?2 AND v.deleted_at IS NULL)`;

/** A lease's rate is on every one of its rows; its first month's row is the one counted. */
const FIRST_ROW = (alias: string) => `${alias}.month = (SELECT MIN(r2.month) FROM budget_reservations r2 WHERE r2.lease_id = ${alias}.lease_id)`;

const LIVE_HOURLY = `
  (SELECT COALESCE(SUM(r.hourly_micro_usd), 0) FROM leases l JOIN budget_reservations r ON r.lease_id = l.id
     WHERE l.org_id = ?2 AND l.state IN ${LIVE_STATES} AND l.id IS NOT ?1 AND ${FIRST_ROW("r")})
  + (SELECT COALESCE(SUM(r.hourly_micro_usd), 0) FROM budget_reservations r
     WHERE r.org_id = ?2 AND r.created_at > ?7 AND r.lease_id IS NOT ?1 AND ${FIRST_ROW("r")}
       AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.id = r.lease_id))
  + ${VOLUMES_HOURLY}`;

/**
 * How many leases the org has created since the lease id ?9 (src/ids.ts `idFloor`: the start of
 * the creation window), up to ?8 of them, leaving out lease ?1: those in the index (`leases_org`),
 * and those admitted within PENDING_MS (?7) whose lease has not reached it yet, as a reservation
 * counts (src/db/creation-caps.ts).
 */
const LEASES_MADE = `
  (SELECT COUNT(*) FROM (SELECT 1 FROM leases WHERE org_id = ?2 AND id >= ?9 AND id IS NOT ?1 LIMIT COALESCE(?8, 0)))
  + (SELECT COUNT(DISTINCT r.lease_id) FROM budget_reservations r
     WHERE r.org_id = ?2 AND r.created_at > ?7 AND r.lease_id IS NOT ?1 AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.id = r.lease_id))`;

/**
 * ?1 lease, ?2 org, ?3 the months asked for (JSON [{month, micros}]), ?4 1 when the lease has no
 * ceiling, ?5 hourly, ?6 now, ?7 pending cutoff; at a create, ?8 the org's cap on leases created
 * in the creation window and ?9 the id that window begins at (null both for an action of a lease
 * that exists, which creates nothing). Writes every month row of the lease, or nothing.
 */
const RESERVE = `
  INSERT INTO budget_reservations (lease_id, org_id, month, ceiling_micro_usd, hourly_micro_usd, created_at)
  SELECT ?1, ?2, json_extract(j.value, '$.month'), CASE WHEN ?4 = 1 THEN NULL ELSE json_extract(j.value, '$.micros') END, ?5, ?6
  FROM json_each(?3) j
  WHERE (?8 IS NULL OR (${LEASES_MADE}) < ?8) AND NOT EXISTS (
    SELECT 1 FROM budgets b
    WHERE b.org_id = ?2 AND (
      (b.monthly_micro_usd IS NOT NULL AND (?4 = 1 OR EXISTS (
        SELECT 1 FROM json_each(?3) k
        WHERE ${orgCommitted("json_extract(k.value, '$.month')")} + json_extract(k.value, '$.micros') > b.monthly_micro_usd)))
      OR (b.concurrent_hourly_micro_usd IS NOT NULL AND (${LIVE_HOURLY}) + ?5 > b.concurrent_hourly_micro_usd)
    )
  )
  ON CONFLICT (lease_id, month) DO UPDATE SET ceiling_micro_usd = excluded.ceiling_micro_usd, hourly_micro_usd = excluded.hourly_micro_usd`;

/** ?1 lease (null: none left out), ?2 org, ?3 month, ?7 pending cutoff. */
const STANDING = `SELECT ${orgCommitted("?3")} AS month_committed, (${LIVE_HOURLY}) AS live_hourly`;

/**
 * The condition under which a new volume fits the org's caps (an SQL expression for a volume's
 * conditional INSERT, src/volumes/volumes.ts): ?2 org, ?7 pending cutoff, ?1 anything no lease is
 * (the volume's id); `month`, `ask` and `hourly` name its own parameters: the month it is made in,
 * what it bills from now to that month's end, and its rate.
 */
export function volumeFitsSql(month: string, ask: string, hourly: string): string {
  return `NOT EXISTS (
    SELECT 1 FROM budgets b
    WHERE b.org_id = ?2 AND (
      (b.monthly_micro_usd IS NOT NULL AND ${orgCommitted(month)} + ${ask} > b.monthly_micro_usd)
      OR (b.concurrent_hourly_micro_usd IS NOT NULL AND (${LIVE_HOURLY}) + ${hourly} > b.concurrent_hourly_micro_usd)))`;
}

/**
 * What a volume of `sizeGb` at `gbMonthMicros` asks for when made at `now`: its rate, and its cost
 * from now to the end of the month (a volume has no end of its own; each later month it lives in
 * counts in full in that month's commitments). Nothing where the price is unknown.
 */
export function volumeReservation(sizeGb: number, gbMonthMicros: number | null, now: number): Reservation {
  const month = monthOf(now);
  if (gbMonthMicros === null) return { hourly_micro_usd: 0, unbounded: false, months: { [month]: 0 } };
  const end = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1);
  return {
    hourly_micro_usd: Math.round((gbMonthMicros * sizeGb) / 730),
    unbounded: false,
    months: { [month]: Math.round((gbMonthMicros * sizeGb * (end - now)) / VOLUME_MONTH_MS) },
  };
}

/** 402 `over_budget` for a volume that did not fit (the details as a lease's). */
export async function volumeRefusal(d1: D1Database, db: Db, volume: { volume_id: string; org_id: string; need: Reservation }, now: number): Promise<ApiError> {
  return refusal(d1, db, { lease_id: volume.volume_id, org_id: volume.org_id, need: volume.need }, now, "volume");
}

/** The quote's cost ceiling in micro-dollars: the rate times the shorter of ttl and max_lifetime; null when neither caps it. */
export function ceilingMicros(hourlyUsd: number, policy: Pick<Policy, "ttl" | "max_lifetime">): number | null {
  const capped = cappedDurationMs(policy);
  return capped ? Math.round((usdToMicros(hourlyUsd) * capped.ms) / HOUR_MS) : null;
}

/**
 * What a new lease asks for at admission: its rate from now to its hard end, by month, and what
 * its disk may bill while stopped (ceiling.ts `stoppedDiskMicros`; absent: nothing), and what
 * replacing failed hosts may add (ceiling.ts `retriesMicros`; absent: nothing), and the outputs
 * wait of a release at the ttl (policy.ts `outputsWaitMs`; absent: nothing).
 */
export function admissionReservation(
  hourlyUsd: number,
  policy: Pick<Policy, "ttl" | "max_lifetime">,
  now: number,
  stoppedDiskMicroUsd: number | null = 0,
  retriesMicroUsd = 0,
  outputsWaitMs = 0,
): Reservation {
  return worstCase(
    {
      segments: [],
      hourly_usd: hourlyUsd,
      ttl_deadline: policy.ttl === null ? null : now + policy.ttl,
      max_lifetime: policy.max_lifetime,
      session_start: now,
      stopped_disk_micro_usd: stoppedDiskMicroUsd,
      retries_micro_usd: retriesMicroUsd,
      outputs_wait_ms: outputsWaitMs,
    },
    now,
  );
}

export interface Budget {
  monthly_micro_usd: number | null;
  concurrent_hourly_micro_usd: number | null;
  updated_at: number | null;
}

export async function getBudget(db: Db, orgId: string): Promise<Budget> {
  const row = await db.selectFrom("budgets").selectAll().where("org_id", "=", orgId).executeTakeFirst();
  return row ?? { monthly_micro_usd: null, concurrent_hourly_micro_usd: null, updated_at: null };
}

/** Fields left out keep their value; null removes a cap. */
export async function putBudget(
  db: Db,
  orgId: string,
  patch: { monthly_usd?: number | null; concurrent_hourly_usd?: number | null },
  now: number,
): Promise<Budget> {
  const current = await getBudget(db, orgId);
  const micros = (v: number | null | undefined, keep: number | null) => (v === undefined ? keep : v === null ? null : usdToMicros(v));
  const next = {
    monthly_micro_usd: micros(patch.monthly_usd, current.monthly_micro_usd),
    concurrent_hourly_micro_usd: micros(patch.concurrent_hourly_usd, current.concurrent_hourly_micro_usd),
    updated_at: now,
  };
  await db
    .insertInto("budgets")
    .values({ org_id: orgId, ...next })
    .onConflict((oc) => oc.column("org_id").doUpdateSet(next))
    .execute();
  return next;
}

export interface Standing {
  month: string;
  month_committed_micro_usd: number;
  live_hourly_micro_usd: number;
}

/** What counts against the caps now (leaving out lease `except`, when given). */
export async function budgetStanding(d1: D1Database, orgId: string, now: number, month = monthOf(now), except: string | null = null): Promise<Standing> {
  const row = await d1
    .prepare(STANDING)
    .bind(except, orgId, month, null, null, null, now - PENDING_MS)
    .first<{ month_committed: number; live_hourly: number }>();
  return { month, month_committed_micro_usd: row?.month_committed ?? 0, live_hourly_micro_usd: row?.live_hourly ?? 0 };
}

/**
 * Reserves `need` for a lease against its org's caps, atomically (one statement), replacing what
 * it held, or refuses with 402 `over_budget` and writes nothing (details name the cap, its limit,
 * what the org has committed without this lease, and what the lease asks for).
 */
/**
 * Reserves `lease.need`, or throws why not: 402 over_budget, or, for a create (`leasesCap`: the
 * org's cap on leases created in the creation window), 429 when the org has created that many
 * (src/db/creation-caps.ts), counted in the same statement.
 */
export async function reserveBudget(
  d1: D1Database,
  db: Db,
  lease: { lease_id: string; org_id: string; need: Reservation },
  now: number,
  leasesCap: number | null = null,
): Promise<void> {
  const { need } = lease;
  const months = Object.entries(need.months).map(([month, micros]) => ({ month, micros }));
  const floor = leasesCap === null ? null : idFloor("ls", now - CREATION_WINDOW_MS);
  const result = await d1
    .prepare(RESERVE)
    .bind(lease.lease_id, lease.org_id, JSON.stringify(months), need.unbounded ? 1 : 0, need.hourly_micro_usd, now, now - PENDING_MS, leasesCap, floor)
    .run();
  if ((result.meta.changes ?? 0) > 0) return;
  if (leasesCap !== null && floor !== null) {
    const made = await d1
      .prepare(`SELECT ${LEASES_MADE} AS n, (SELECT MIN(created_at) FROM (SELECT created_at FROM leases WHERE org_id = ?2 AND id >= ?9 ORDER BY id LIMIT 1)) AS oldest`)
      .bind(lease.lease_id, lease.org_id, null, null, null, null, now - PENDING_MS, leasesCap, floor)
      .first<{ n: number; oldest: number | null }>();
    if (made && made.n >= leasesCap) throw capReached("leases", leasesCap, retryAfterS(made.oldest, now));
  }
  throw await refusal(d1, db, lease, now);
}

/** Why a reservation was refused, from a fresh read (only the message depends on it). */
async function refusal(d1: D1Database, db: Db, { lease_id, org_id, need }: { lease_id: string; org_id: string; need: Reservation }, now: number, what: "lease" | "volume" = "lease"): Promise<ApiError> {
  const budget = await getBudget(db, org_id);
  const usd = (m: number | null) => (m === null ? null : microsToUsd(m));
  if (budget.monthly_micro_usd !== null) {
    for (const [month, micros] of Object.entries(need.months).sort()) {
      const standing = await budgetStanding(d1, org_id, now, month, lease_id);
      if (!need.unbounded && standing.month_committed_micro_usd + micros <= budget.monthly_micro_usd) continue;
      const message = need.unbounded
        ? "the org has a monthly cap and this lease has no cost ceiling: give it a ttl or a max_lifetime, and a stopped_ttl where its provider bills a stopped machine's disk"
        : `this ${what} could cost $${microsToUsd(micros)} in ${month}, which would pass the org's monthly cap of $${microsToUsd(budget.monthly_micro_usd)}`;
      return new ApiError(402, "over_budget", message, {
        cap: "monthly",
        month,
        limit_usd: usd(budget.monthly_micro_usd),
        committed_usd: usd(standing.month_committed_micro_usd),
        requested_usd: need.unbounded ? null : usd(micros),
      });
    }
  }
  const standing = await budgetStanding(d1, org_id, now, monthOf(now), lease_id);
  return new ApiError(
    402,
    "over_budget",
    `this ${what}'s $${microsToUsd(need.hourly_micro_usd)}/h would pass the org's cap on concurrent hourly spend of $${usd(budget.concurrent_hourly_micro_usd)}/h`,
    {
      cap: "concurrent_hourly",
      limit_usd: usd(budget.concurrent_hourly_micro_usd),
      committed_usd: usd(standing.live_hourly_micro_usd),
      requested_usd: usd(need.hourly_micro_usd),
    },
  );
}

/** Gives back the reservation of a lease that was never made (its create failed after admission). */
export async function dropReservation(db: Db, leaseId: string): Promise<void> {
  await db.deleteFrom("budget_reservations").where("lease_id", "=", leaseId).execute();
}

/**
 * A released lease's rows become what it accrued, month by month (ceiling.ts `settled`): written
 * unconditionally (it only says what happened), before the index shows the lease released.
 */
export async function settleReservation(d1: D1Database, lease: { lease_id: string; org_id: string; settled: Reservation }, now: number): Promise<void> {
  const months = Object.entries(lease.settled.months).map(([month, micros]) => ({ month, micros }));
  // One batch (one transaction): a month the lease no longer costs anything in is zeroed first.
  await d1.batch([
    d1.prepare(`UPDATE budget_reservations SET ceiling_micro_usd = 0 WHERE lease_id = ?1`).bind(lease.lease_id),
    d1
      .prepare(
        `INSERT INTO budget_reservations (lease_id, org_id, month, ceiling_micro_usd, hourly_micro_usd, created_at)
         SELECT ?1, ?2, json_extract(j.value, '$.month'), json_extract(j.value, '$.micros'), ?4, ?5 FROM json_each(?3) j WHERE true
         ON CONFLICT (lease_id, month) DO UPDATE SET ceiling_micro_usd = excluded.ceiling_micro_usd`,
      )
      .bind(lease.lease_id, lease.org_id, JSON.stringify(months), lease.settled.hourly_micro_usd, now),
  ]);
}
