/**
 * Budgets (issue 6): an org's monthly cap and its cap on concurrent hourly spend, and admission
 * against them.
 *
 * Every lease is admitted with a reservation: its cost ceiling (the quote's: the hourly rate times
 * the shorter of `ttl` and `max_lifetime`) and its hourly rate. The reservation is one conditional
 * INSERT that adds the lease only if neither cap would be passed, counted in the same statement.
 * D1 runs one statement at a time, so two concurrent creates can never both pass a cap: the second
 * counts the first's reservation. It happens before the lease's object exists, so a refused lease
 * rents nothing.
 *
 * What counts against the caps:
 * - the month (UTC, the month a lease was admitted in): a released lease's receipt, or its final
 *   estimate until the receipt is written; a live lease's ceiling (or its estimate, if larger);
 * - concurrent hourly: the hourly rate of every lease not yet released. A stopped lease keeps its
 *   place: it may start again without asking.
 * A reservation whose lease has not reached the index within PENDING_MS (its create failed) stops
 * counting.
 */
import type { Db } from "../db";
import { ApiError } from "../errors";
import { cappedDurationMs, type Policy } from "../lease/policy";
import { HOUR_MS, microsToUsd, usdToMicros } from "./money";

/** How long a reservation counts before its lease appears in the index. */
export const PENDING_MS = 10 * 60_000;

const LIVE_STATES = "('pending', 'provisioning', 'booting', 'ready', 'stopping', 'stopped', 'starting', 'releasing')";

/** ?2 org, ?3 month, ?7 the time before which a lease-less reservation no longer counts. */
const MONTH_COMMITTED = `
  SELECT COALESCE(SUM(CASE
      WHEN l.id IS NULL THEN (CASE WHEN r.created_at > ?7 THEN COALESCE(r.ceiling_micro_usd, 0) ELSE 0 END)
      WHEN l.state = 'released' THEN COALESCE(rc.actual_micro_usd, l.estimate_micro_usd)
      ELSE MAX(COALESCE(r.ceiling_micro_usd, 0), l.estimate_micro_usd)
    END), 0)
  FROM budget_reservations r
  LEFT JOIN leases l ON l.id = r.lease_id
  LEFT JOIN receipts rc ON rc.lease_id = r.lease_id
  WHERE r.org_id = ?2 AND r.month = ?3`;

const LIVE_HOURLY = `
  (SELECT COALESCE(SUM(r.hourly_micro_usd), 0) FROM leases l JOIN budget_reservations r ON r.lease_id = l.id
     WHERE l.org_id = ?2 AND l.state IN ${LIVE_STATES})
  + (SELECT COALESCE(SUM(r.hourly_micro_usd), 0) FROM budget_reservations r
     WHERE r.org_id = ?2 AND r.created_at > ?7 AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.id = r.lease_id))`;

/** ?1 lease, ?2 org, ?3 month, ?4 ceiling (null: none), ?5 hourly, ?6 now, ?7 pending cutoff. */
const RESERVE = `
  INSERT INTO budget_reservations (lease_id, org_id, month, ceiling_micro_usd, hourly_micro_usd, created_at)
  SELECT ?1, ?2, ?3, ?4, ?5, ?6
  WHERE NOT EXISTS (
    SELECT 1 FROM budgets b
    WHERE b.org_id = ?2 AND (
      (b.monthly_micro_usd IS NOT NULL AND (?4 IS NULL OR (${MONTH_COMMITTED}) + ?4 > b.monthly_micro_usd))
      OR (b.concurrent_hourly_micro_usd IS NOT NULL AND (${LIVE_HOURLY}) + ?5 > b.concurrent_hourly_micro_usd)
    )
  )
  ON CONFLICT (lease_id) DO NOTHING`;

const STANDING = `SELECT (${MONTH_COMMITTED}) AS month_committed, (${LIVE_HOURLY}) AS live_hourly`;

export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** The quote's cost ceiling in micro-dollars: the rate times the shorter of ttl and max_lifetime; null when neither caps it. */
export function ceilingMicros(hourlyUsd: number, policy: Pick<Policy, "ttl" | "max_lifetime">): number | null {
  const capped = cappedDurationMs(policy);
  return capped ? Math.round((usdToMicros(hourlyUsd) * capped.ms) / HOUR_MS) : null;
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

/** What counts against the caps now. */
export async function budgetStanding(d1: D1Database, orgId: string, now: number): Promise<Standing> {
  const month = monthOf(now);
  const row = await d1
    .prepare(STANDING)
    .bind(null, orgId, month, null, null, null, now - PENDING_MS)
    .first<{ month_committed: number; live_hourly: number }>();
  return { month, month_committed_micro_usd: row?.month_committed ?? 0, live_hourly_micro_usd: row?.live_hourly ?? 0 };
}

/**
 * Admits a lease against its org's caps, atomically, or refuses it with 402 `over_budget`
 * (details name the cap, its limit, what is committed and what was asked for).
 */
export async function reserveBudget(
  d1: D1Database,
  db: Db,
  lease: { lease_id: string; org_id: string; hourly_usd: number; policy: Pick<Policy, "ttl" | "max_lifetime"> },
  now: number,
): Promise<void> {
  const ceiling = ceilingMicros(lease.hourly_usd, lease.policy);
  const hourly = usdToMicros(lease.hourly_usd);
  const result = await d1
    .prepare(RESERVE)
    .bind(lease.lease_id, lease.org_id, monthOf(now), ceiling, hourly, now, now - PENDING_MS)
    .run();
  if ((result.meta.changes ?? 0) > 0) return;
  // Refused: say which cap, from a fresh read (only the message depends on it).
  const [budget, standing] = await Promise.all([getBudget(db, lease.org_id), budgetStanding(d1, lease.org_id, now)]);
  const usd = (m: number | null) => (m === null ? null : microsToUsd(m));
  const monthlyOver =
    budget.monthly_micro_usd !== null && (ceiling === null || standing.month_committed_micro_usd + ceiling > budget.monthly_micro_usd);
  if (monthlyOver) {
    const message =
      ceiling === null
        ? "the org has a monthly cap and this lease has no cost ceiling: give it a ttl or a max_lifetime"
        : `this lease could cost $${microsToUsd(ceiling)}, which would pass the org's monthly cap of $${microsToUsd(budget.monthly_micro_usd!)}`;
    throw new ApiError(402, "over_budget", message, {
      cap: "monthly",
      month: standing.month,
      limit_usd: usd(budget.monthly_micro_usd),
      committed_usd: usd(standing.month_committed_micro_usd),
      requested_usd: usd(ceiling),
    });
  }
  throw new ApiError(
    402,
    "over_budget",
    `this lease's $${lease.hourly_usd}/h would pass the org's cap on concurrent hourly spend of $${usd(budget.concurrent_hourly_micro_usd)}/h`,
    {
      cap: "concurrent_hourly",
      limit_usd: usd(budget.concurrent_hourly_micro_usd),
      committed_usd: usd(standing.live_hourly_micro_usd),
      requested_usd: usd(hourly),
    },
  );
}
