/**
 * `GET /v1/usage`: an org's spend over [from, to), grouped by provider, GPU class, lease or UTC
 * day (docs/design.md). Three figures per group, never mixed:
 * - `estimate_usd`: lessor's own estimate (the accrual of every lease over the range, an open one
 *   counted up to now);
 * - `actual_usd`: the providers' billing records fetched so far, by the start of their window;
 * - `disputed_usd`: the part of `actual_usd` that belongs to leases whose receipt is disputed.
 * A lease that never held a machine never appears: it has neither an accrual nor a record.
 *
 * Volumes' storage counts too (migrations/0029 `volume_bills`): its estimate is its size at its
 * stated price from its creation to its deletion (none where the provider states no price), its
 * actual the provider's records of it; grouped by GPU its key is `volume`, by lease the volume's id.
 */
import type { Db } from "../db";
import { badRequest } from "../errors";
import { estimateByDay, estimateOf, type Segment } from "./accrual";
import { microsToUsd } from "./money";

export const USAGE_GROUPS = ["provider", "gpu", "lease", "day"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

const DAY_MS = 86_400_000;
/** The longest range one usage answer covers. */
const MAX_USAGE_RANGE_MS = 366 * DAY_MS;

function timeOf(field: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (!Number.isFinite(ms) || ms < 0) throw badRequest("invalid_request", `${field}: "${text}" is not an ISO 8601 date or time`, { field });
  return ms;
}

/**
 * The range a usage request asks for: ISO 8601 dates (midnight UTC) or times, by default from the
 * first of this month (UTC) to now. 400 `invalid_range` unless it is forward and at most 366 days.
 */
export function usageRange(asked: { from?: string | undefined; to?: string | undefined }, now: number): { from: number; to: number } {
  const monthStart = Date.parse(`${new Date(now).toISOString().slice(0, 7)}-01T00:00:00Z`);
  const from = asked.from === undefined ? monthStart : timeOf("from", asked.from);
  const to = asked.to === undefined ? now : timeOf("to", asked.to);
  if (to <= from) throw badRequest("invalid_range", "`to` must be after `from`", { from: asked.from ?? null, to: asked.to ?? null });
  if (to - from > MAX_USAGE_RANGE_MS) throw badRequest("invalid_range", "a usage range covers at most 366 days", { max_days: 366 });
  return { from, to };
}

interface LeaseFacts {
  id: string;
  provider: string;
  gpu_class: string | null;
  billing_status: string;
}

interface Row {
  key: string;
  estimate: number;
  actual: number;
  disputed: number;
  leases: Set<string>;
  volumes: Set<string>;
  lease?: LeaseFacts;
}

/** The GPU-group key of volumes' storage. */
export const VOLUME_USAGE_KEY = "volume";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function usageOf(db: Db, orgId: string, range: { from: number; to: number; group_by: UsageGroup }, now: number, storageGbMonth = 0) {
  const { from, to, group_by } = range;
  const keyOf = (l: LeaseFacts, at: number) =>
    group_by === "provider" ? l.provider : group_by === "gpu" ? (l.gpu_class ?? "unknown") : group_by === "lease" ? l.id : day(at);
  const rows = new Map<string, Row>();
  const add = (l: LeaseFacts, at: number, field: "estimate" | "actual" | "disputed", micros: number, what: "leases" | "volumes" = "leases") => {
    const key = keyOf(l, at);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { key, estimate: 0, actual: 0, disputed: 0, leases: new Set(), volumes: new Set() }));
    row[field] += micros;
    row[what].add(l.id);
    if (group_by === "lease") row.lease = l;
  };

  // Leases that billed at some time in the range (their accrual began before `to` and ended after `from`).
  const leases = await db
    .selectFrom("leases")
    .select(["id", "provider", "gpu_class", "billing_status", "accrual"])
    .where("org_id", "=", orgId)
    .where("billed_from", "is not", null)
    .where("billed_from", "<", to)
    .where((eb) => eb.or([eb("released_at", "is", null), eb("released_at", ">", from)]))
    .execute();
  for (const l of leases) {
    const segments = JSON.parse(l.accrual) as Segment[];
    if (group_by === "day") {
      for (const [start, micros] of estimateByDay(segments, now, from, to)) if (micros > 0) add(l, start, "estimate", micros);
    } else {
      const micros = estimateOf(segments, now, from, to).total;
      if (micros > 0) add(l, from, "estimate", micros);
    }
  }

  const records = await db
    .selectFrom("billing_records as r")
    .innerJoin("leases as l", "l.id", "r.lease_id")
    .select(["l.id", "l.provider", "l.gpu_class", "l.billing_status", "r.window_start", "r.amount_micro_usd"])
    .where("r.org_id", "=", orgId)
    .where("r.window_start", ">=", from)
    .where("r.window_start", "<", to)
    .execute();
  for (const r of records) {
    add(r, r.window_start, "actual", r.amount_micro_usd);
    if (r.billing_status === "disputed") add(r, r.window_start, "disputed", r.amount_micro_usd);
  }

  // Volumes' storage that billed at some time in the range.
  const bills = await db
    .selectFrom("volume_bills")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("billed_from", "<", to)
    .where((eb) => eb.or([eb("deleted_at", "is", null), eb("deleted_at", ">", from)]))
    .execute();
  const volumeFacts = new Map<string, LeaseFacts>();
  for (const b of bills) {
    const status = b.deleted_at === null ? "accruing" : b.settled_through >= b.deleted_at ? "settled" : "awaiting_windows";
    const facts: LeaseFacts = { id: b.volume_id, provider: b.provider, gpu_class: VOLUME_USAGE_KEY, billing_status: status };
    volumeFacts.set(b.volume_id, facts);
    if (b.gb_month_micro_usd === null) continue;
    const segments: Segment[] = [{ from: b.billed_from, to: b.deleted_at, kind: "running", rate: (b.gb_month_micro_usd * b.size_gb) / 730 }];
    if (group_by === "day") {
      for (const [start, micros] of estimateByDay(segments, now, from, to)) if (micros > 0) add(facts, start, "estimate", micros, "volumes");
    } else {
      const micros = estimateOf(segments, now, from, to).total;
      if (micros > 0) add(facts, from, "estimate", micros, "volumes");
    }
  }
  const volumeRecords = await db
    .selectFrom("billing_records")
    .select(["volume_id", "window_start", "amount_micro_usd"])
    .where("org_id", "=", orgId)
    .where("volume_id", "is not", null)
    .where("window_start", ">=", from)
    .where("window_start", "<", to)
    .execute();
  for (const r of volumeRecords) {
    const facts = volumeFacts.get(r.volume_id!);
    if (facts) add(facts, r.window_start, "actual", r.amount_micro_usd, "volumes");
  }

  const data = [...rows.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => ({
      key: r.key,
      ...(r.lease ? { provider: r.lease.provider, gpu: r.lease.gpu_class, billing_status: r.lease.billing_status } : {}),
      estimate_usd: microsToUsd(r.estimate),
      actual_usd: microsToUsd(r.actual),
      disputed_usd: microsToUsd(r.disputed),
      leases: r.leases.size,
      volumes: r.volumes.size,
    }));
  const sum = (f: "estimate" | "actual" | "disputed") => microsToUsd([...rows.values()].reduce((s, r) => s + r[f], 0));
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    group_by,
    data,
    totals: {
      estimate_usd: sum("estimate"),
      actual_usd: sum("actual"),
      disputed_usd: sum("disputed"),
      leases: new Set([...rows.values()].flatMap((r) => [...r.leases])).size,
      volumes: new Set([...rows.values()].flatMap((r) => [...r.volumes])).size,
      storage_gb_month: storageGbMonth,
    },
  };
}
