/**
 * Accrual: the estimate's segments follow the lease's transitions; the session budget's
 * deadline is the moment the estimate reaches the cap; the dispute tolerance on both sides.
 */
import { describe, expect, it } from "vitest";
import { accrue, estimateByDay, estimateOf, sessionBudgetDeadline, type Segment } from "../../src/billing/accrual";
import { beyondTolerance, CENT, microsFor, usdToMicros } from "../../src/billing/money";
import { withBilling } from "../../src/lease/billing";
import { POLICY_DEFAULTS } from "../../src/lease/policy";
import type { LeaseRecord, LeaseState } from "../../src/lease/state";

const T0 = Date.UTC(2026, 10, 30, 23, 0, 0);
const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe("accrue", () => {
  it("opens a segment, keeps it while the rate holds, closes it when the rate changes", () => {
    let s: Segment[] = [];
    s = accrue(s, "running", 2_000_000, T0);
    expect(s).toEqual([{ from: T0, to: null, kind: "running", rate: 2_000_000 }]);
    expect(accrue(s, "running", 2_000_000, T0 + M)).toBe(s);
    s = accrue(s, "stopped", 200_000, T0 + H);
    expect(s).toEqual([
      { from: T0, to: T0 + H, kind: "running", rate: 2_000_000 },
      { from: T0 + H, to: null, kind: "stopped", rate: 200_000 },
    ]);
    s = accrue(s, null, 0, T0 + 2 * H);
    expect(s.at(-1)).toEqual({ from: T0 + H, to: T0 + 2 * H, kind: "stopped", rate: 200_000 });
    expect(accrue(s, null, 0, T0 + 3 * H)).toBe(s);
  });

  it("bills nothing at a zero rate (stopping ends billing) and drops zero-length stretches", () => {
    expect(accrue([], "stopped", 0, T0)).toEqual([]);
    const s = accrue([], "running", 1_000_000, T0);
    expect(accrue(s, "stopped", 100_000, T0)).toEqual([{ from: T0, to: null, kind: "stopped", rate: 100_000 }]);
  });

  it("reopens the stretch that just closed when the same rate resumes at once", () => {
    let s = accrue([], "running", 1_000_000, T0);
    s = accrue(s, null, 0, T0 + M);
    s = accrue(s, "running", 1_000_000, T0 + M);
    expect(s).toEqual([{ from: T0, to: null, kind: "running", rate: 1_000_000 }]);
  });
});

describe("estimateOf and estimateByDay", () => {
  const segments: Segment[] = [
    { from: T0, to: T0 + 90 * M, kind: "running", rate: 2_000_000 },
    { from: T0 + 90 * M, to: null, kind: "stopped", rate: 200_000 },
  ];

  it("sums rate times time per kind, an open segment up to now", () => {
    expect(estimateOf(segments, T0 + 2 * H)).toEqual({ total: 3_100_000, running: 3_000_000, stopped: 100_000, running_ms: 90 * M, stopped_ms: 30 * M });
  });

  it("clips to a range", () => {
    expect(estimateOf(segments, T0 + 2 * H, T0 + H, T0 + 2 * H).total).toBe(1_000_000 + 100_000);
  });

  it("splits across UTC midnight", () => {
    // T0 is 23:00: one hour before midnight, one after.
    const byDay = estimateByDay(segments, T0 + 2 * H, 0, Infinity);
    const midnight = T0 + H;
    expect([...byDay.entries()]).toEqual([
      [midnight - 24 * H, 2_000_000],
      [midnight, 1_000_000 + 100_000],
    ]);
  });

  it("rounds each stretch to the micro-dollar", () => {
    expect(microsFor(1, 7_000_000)).toBe(2); // 1 ms at $7/h is 1.94 micro-dollars
    expect(usdToMicros(0.1 + 0.2)).toBe(300_000);
  });
});

describe("sessionBudgetDeadline", () => {
  it("is when the session's estimate reaches the cap", () => {
    const s: Segment[] = [{ from: T0, to: null, kind: "running", rate: 2_000_000 }];
    expect(sessionBudgetDeadline(s, T0, 3_000_000)).toBe(T0 + 90 * M);
  });
  it("counts only the session: an earlier session and the stopped time between are not in it", () => {
    const s: Segment[] = [
      { from: T0, to: T0 + H, kind: "running", rate: 2_000_000 },
      { from: T0 + H, to: T0 + 2 * H, kind: "stopped", rate: 200_000 },
      { from: T0 + 2 * H, to: null, kind: "running", rate: 2_000_000 },
    ];
    expect(sessionBudgetDeadline(s, T0 + 2 * H, 1_000_000)).toBe(T0 + 2 * H + 30 * M);
  });
  it("is now when the cap is already reached, and null while nothing accrues", () => {
    const s: Segment[] = [
      { from: T0, to: T0 + H, kind: "running", rate: 2_000_000 },
      { from: T0 + H, to: null, kind: "running", rate: 3_000_000 },
    ];
    expect(sessionBudgetDeadline(s, T0, 1_000_000)).toBe(T0 + H);
    expect(sessionBudgetDeadline([{ from: T0, to: T0 + H, kind: "running", rate: 2_000_000 }], T0, 10_000_000)).toBeNull();
  });
});

describe("beyondTolerance: max($0.01, 1% of the actual)", () => {
  it("a cent either way is within tolerance on a small bill, a cent and a micro-dollar is not", () => {
    expect(beyondTolerance(500_000, 500_000 + CENT)).toBe(false);
    expect(beyondTolerance(500_000, 500_000 - CENT - 1)).toBe(true);
  });
  it("1% on a large bill", () => {
    expect(beyondTolerance(100_000_000, 101_000_000)).toBe(false);
    expect(beyondTolerance(100_000_000, 101_000_001)).toBe(true);
  });
});

describe("withBilling: the accrual follows the lease's state", () => {
  const base = {
    id: "ls_x", org_id: "org_x", kind: "scratch", state: "pending", state_since: T0, policy: POLICY_DEFAULTS.scratch, spec: null, quote_id: null,
    offers: [], offer_index: 0, excluded_hosts: [], attempt: 0, provider: "sim", can_stop: true, machine_id: null, label: null,
    machine_status: null, observed_at: null, hourly_usd: 2, stopped_hourly_usd: 0, machine_ids: [],
    billing: { status: "accruing", segments: [], receipt_id: null, actual_micro_usd: null }, reconcile_required: false, retry_at: null,
    created_at: T0, session_started_at: null, ready_at: null, ttl_deadline: null, last_activity_at: null, lock_until: null, stopped_at: null,
    stop_failing_since: null, stop_issued_at: null, release_reason: null, released_at: null, image: null, cmd: null, warnings: [], version: 1,
  } as LeaseRecord;
  const step = (l: LeaseRecord, state: LeaseState, t: number, patch: Partial<LeaseRecord> = {}) => withBilling({ ...l, ...patch, state } as LeaseRecord, t);

  it("running from the machine's create, disk while stopped, nothing once released", () => {
    let l = step(base, "provisioning", T0);
    expect(l.billing.segments).toEqual([]);
    l = step(l, "booting", T0 + S, { machine_id: "m1", stopped_hourly_usd: 0.2 });
    expect(l.machine_ids).toEqual(["m1"]);
    l = step(l, "ready", T0 + 2 * S);
    l = step(l, "stopping", T0 + H);
    l = step(l, "stopped", T0 + H + S);
    l = step(l, "releasing", T0 + 2 * H);
    l = step(l, "released", T0 + 2 * H + S, { released_at: T0 + 2 * H + S });
    expect(l.billing.segments).toEqual([
      { from: T0 + S, to: T0 + H + S, kind: "running", rate: 2_000_000 },
      { from: T0 + H + S, to: T0 + 2 * H + S, kind: "stopped", rate: 200_000 },
    ]);
    expect(l.billing.status).toBe("awaiting_windows");
  });

  it("a lease released without ever holding a machine has nothing to bill", () => {
    const l = step(step(base, "releasing", T0), "released", T0 + S);
    expect(l.billing).toMatchObject({ status: "none", segments: [] });
  });

  it("a replaced host's machine is remembered with the new one", () => {
    let l = step(base, "booting", T0, { machine_id: "m1" });
    l = step(l, "provisioning", T0 + M, { machine_id: null });
    l = step(l, "booting", T0 + 2 * M, { machine_id: "m2" });
    expect(l.machine_ids).toEqual(["m1", "m2"]);
    expect(l.billing.segments.map((s) => [s.from, s.to])).toEqual([[T0, T0 + M], [T0 + 2 * M, null]]);
  });
});
