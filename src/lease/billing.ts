/**
 * A lease's billing as its object keeps it: the accrual follows the lease's state on
 * every write, the machines it ever held are remembered for attributing the provider's billing
 * records, and the billing status moves beside the state. Pure; the object calls `withBilling` on
 * every save, so no transition can forget it.
 */
import { POLICY_DEFAULTS } from "./policy";
import { accrue, estimateOf, newBilling, type AccrualKind } from "../billing/accrual";
import { settled, type Reservation } from "../billing/ceiling";
import { microsToUsd, usdToMicros } from "../billing/money";
import type { LeaseRecord, LeaseState } from "./state";
import type { Step } from "./transitions";

/**
 * What a lease bills in a state: the machine's rate from the moment it is created until it is
 * seen stopped (a booting machine holds its GPU), the disk rate while it is stopped and until a
 * start is issued. A lease being released bills as it did until its machine is destroyed; one
 * that holds no machine (pending, provisioning, released) bills nothing.
 */
export function accrualKindOf(state: LeaseState, current: AccrualKind | null): AccrualKind | null {
  switch (state) {
    case "booting":
    case "ready":
    case "stopping":
      return "running";
    case "stopped":
    case "starting":
      return "stopped";
    case "releasing":
      return current;
    case "pending":
    case "provisioning":
    case "released":
      return null;
  }
}

/** `after` with its accrual, machine list and billing status brought up to date as of `now`. */
export function withBilling(after: LeaseRecord, now: number): LeaseRecord {
  const billing = after.billing ?? newBilling();
  const open = billing.segments.at(-1);
  const current = open && open.to === null ? open.kind : null;
  const kind = accrualKindOf(after.state, current);
  const rate = kind === "running" ? usdToMicros(after.hourly_usd) : kind === "stopped" ? usdToMicros(after.stopped_hourly_usd ?? 0) : 0;
  const segments = accrue(billing.segments, kind, rate, now);
  const machineIds = after.machine_ids ?? [];
  const machine_ids = after.machine_id !== null && !machineIds.includes(after.machine_id) ? [...machineIds, after.machine_id] : machineIds;
  let status = billing.status;
  if (after.state === "released" && status === "accruing") status = machine_ids.length > 0 ? "awaiting_windows" : "none";
  if (segments === billing.segments && status === billing.status && machine_ids === after.machine_ids) return after;
  return { ...after, machine_ids, billing: { ...billing, segments, status } };
}

/** The lease's billing as the API shows it: the estimate, always labelled so, beside any actual. */
export function renderBilling(l: LeaseRecord, now: number) {
  const billing = l.billing ?? newBilling();
  const asOf = l.released_at ?? now;
  const e = estimateOf(billing.segments, asOf);
  return {
    status: billing.status,
    estimate: {
      label: "estimate" as const,
      amount_usd: microsToUsd(e.total),
      running_usd: microsToUsd(e.running),
      stopped_usd: microsToUsd(e.stopped),
      running_seconds: e.running_ms / 1000,
      stopped_seconds: e.stopped_ms / 1000,
      hourly_usd: l.hourly_usd,
      stopped_hourly_usd: l.stopped_hourly_usd ?? 0,
      as_of: new Date(asOf).toISOString(),
    },
    actual_usd: billing.actual_micro_usd === null ? null : microsToUsd(billing.actual_micro_usd),
    receipt_id: billing.receipt_id,
  };
}

/** What the billing reconciler tells a released lease when its receipt is written. */
export interface Settlement {
  receipt_id: string;
  status: "settled" | "disputed";
  actual_micro_usd: number;
}

/**
 * What a receipt does to the lease: `answer` alone when nothing changes (not this org's lease, not
 * released, nothing billed; or already settled, answered true only for the same receipt, since a
 * settled lease never takes another, guarantee 7), else the step that records it.
 */
export function settlementOf(l: LeaseRecord | null, orgId: string, s: Settlement): { answer: boolean } | { step: Step } {
  if (!l || l.org_id !== orgId || l.state !== "released" || l.billing.status === "none") return { answer: false };
  if (l.billing.status === "settled" || l.billing.status === "disputed") return { answer: l.billing.receipt_id === s.receipt_id };
  return {
    step: {
      next: { ...l, billing: { ...l.billing, status: s.status, receipt_id: s.receipt_id, actual_micro_usd: s.actual_micro_usd } },
      effect: { event: "billing_settled", detail: { receipt_id: s.receipt_id, status: s.status, actual_usd: microsToUsd(s.actual_micro_usd) } },
    },
  };
}

/**
 * What a released lease holds against its org's caps from now on: what it accrued, written before
 * the index says released. null: the lease is not released, and its reservation stands.
 */
export function releasedHold(l: LeaseRecord, now: number): Reservation | null {
  if (l.state !== "released") return null;
  return settled(l.billing.segments, l.reserved ?? null, l.released_at ?? now);
}

/** A record stored before leases carried billing: what it lacks, filled in (its estimate starts now). */
export function upgradeRecord(l: LeaseRecord): LeaseRecord {
  if (l.billing && l.machine_ids && l.stopped_hourly_usd !== undefined && l.policy.on_exit !== undefined) return l;
  return {
    ...l,
    // Rules added later take their kind's defaults; every rule the lease was stored with stays.
    policy: { ...POLICY_DEFAULTS[l.kind], ...l.policy },
    stopped_hourly_usd: l.stopped_hourly_usd ?? 0,
    machine_ids: l.machine_ids ?? (l.machine_id ? [l.machine_id] : []),
    billing: l.billing ?? newBilling(),
  };
}
