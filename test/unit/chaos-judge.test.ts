/**
 * The chaos run's judge (test/bench/chaos-lib.ts) over made-up records: a clean lease passes every
 * check, and each kind of violation is counted by its own check and no other.
 */
import { describe, expect, it } from "vitest";
import { CHECKS, judge, type ChaosRaw, type LedgerMachine, type LedgerVolume } from "../bench/chaos-lib";

const T = Date.parse("2026-11-30T12:00:00.000Z");
const at = (ms: number) => new Date(T + ms).toISOString();
const ID = "ls_01m8p000000000000000000000";
const PREFIX = "lessor-dev-";

function lease(over: Record<string, unknown> = {}) {
  return { id: ID, state: "released", state_since: at(10_000), release_reason: "ttl_expired", created_at: at(0), released_at: at(10_000), ttl_expires_at: at(10_000), ...over };
}

function ev(seq: number, ms: number, type: string, from: string | null, to: string, reason: string | null = null) {
  return { seq, at: at(ms), type, from, to, reason, detail: {} };
}

const CLEAN_EVENTS = [
  ev(1, 0, "created", null, "pending"),
  ev(2, 10, "provisioning", "pending", "provisioning"),
  ev(3, 10, "machine_created", "provisioning", "booting"),
  ev(4, 1_000, "ready", "booting", "ready"),
  ev(5, 4_000, "stop_requested", "ready", "stopping", "idle_timeout"),
  ev(6, 4_000, "stop_issued", "stopping", "stopping"),
  ev(7, 4_100, "stopped", "stopping", "stopped"),
  ev(8, 10_000, "release_requested", "stopped", "releasing", "ttl_expired"),
  ev(9, 10_000, "released", "releasing", "released", "ttl_expired"),
];

function machine(over: Partial<LedgerMachine> = {}): LedgerMachine {
  return {
    id: "sim-m-1",
    label: `${PREFIX}${ID}-a1`,
    status: "TERMINATED",
    created_at: T + 20,
    destroyed_at: T + 10_050,
    vanished: false,
    intervals: [
      { status: "PROVISIONING", from: T + 20, to: T + 120 },
      { status: "RUNNING", from: T + 120, to: T + 4_010 },
      { status: "EXITED", from: T + 4_010, to: T + 10_050 },
    ],
    ...over,
  };
}

function run(parts: {
  lease?: Record<string, unknown>;
  events?: any[];
  machines?: LedgerMachine[];
  index?: Record<string, unknown> | null;
  volumes?: LedgerVolume[];
  rows?: Array<{ id: string; name: string }>;
}) {
  const view = { ...lease(parts.lease), guard: { action: "none" } };
  const { guard: _g, ...indexCopy } = view;
  const raw: ChaosRaw = {
    leases: { [ID]: view },
    events: { [ID]: parts.events ?? CLEAN_EVENTS },
    index: parts.index === null ? {} : { [ID]: parts.index ?? indexCopy },
    ledger: { now: T + 60_000, machines: parts.machines ?? [machine()], volumes: parts.volumes ?? [] },
    volumes: parts.rows ?? [],
  };
  const { violations } = judge({ leases: [{ id: ID }], raw, labelPrefix: PREFIX, toleranceMs: 2_000 });
  return Object.fromEntries(violations.filter((v) => v.count > 0).map((v) => [v.check, v.count]));
}

describe("the chaos judge", () => {
  it("finds nothing wrong with a lease that kept every rule", () => {
    expect(run({})).toEqual({});
  });

  it("counts two machines of one lease alive at once", () => {
    const second = machine({ id: "sim-m-2", label: `${PREFIX}${ID}-a2`, created_at: T + 500, intervals: [{ status: "RUNNING", from: T + 500, to: T + 3_000 }], destroyed_at: T + 3_000 });
    expect(run({ machines: [machine(), second], events: [...CLEAN_EVENTS.slice(0, 4), ev(10, 3_000, "machine_destroyed", "booting", "booting", "host_failed"), ...CLEAN_EVENTS.slice(4)] })).toEqual({ [CHECKS.twoAlive]: 1 });
  });

  it("allows a replacement created in the same millisecond the old machine was destroyed", () => {
    const first = machine({ destroyed_at: T + 500, intervals: [{ status: "ERROR", from: T + 20, to: T + 500 }] });
    const second = machine({ id: "sim-m-2", label: `${PREFIX}${ID}-a2`, created_at: T + 500 });
    const events = [...CLEAN_EVENTS.slice(0, 3), ev(10, 490, "machine_destroyed", "booting", "booting", "host_failed"), ...CLEAN_EVENTS.slice(3)];
    expect(run({ machines: [first, second], events })).toEqual({});
  });

  it("counts a machine that outlived its lease's end by more than the tolerance", () => {
    const late = machine({ destroyed_at: T + 13_000, intervals: [{ status: "RUNNING", from: T + 120, to: T + 4_010 }, { status: "EXITED", from: T + 4_010, to: T + 13_000 }] });
    expect(run({ machines: [late] })).toEqual({ [CHECKS.afterEnd]: 1 });
    const withinTolerance = machine({ destroyed_at: T + 11_900, intervals: [{ status: "EXITED", from: T + 4_010, to: T + 11_900 }] });
    expect(run({ machines: [withinTolerance] })).toEqual({});
  });

  it("allows, beyond the tolerance, only the waits the cloud imposed after the end", () => {
    // Ended at 10 s; destroyed at 13 s: 3 s after the end, 1 s over the tolerance.
    const late = (refusals: LedgerMachine["refusals"]) =>
      machine({ destroyed_at: T + 13_000, intervals: [{ status: "EXITED", from: T + 4_010, to: T + 13_000 }], refusals });
    // A 429 after the end with Retry-After 1 s: lessor had to wait it out.
    expect(run({ machines: [late([{ at: T + 10_500, status: 429, retry_after_ms: 1_000 }])] })).toEqual({});
    // The same 429 before the end imposed nothing on the destroy.
    expect(run({ machines: [late([{ at: T + 9_500, status: 429, retry_after_ms: 1_000 }])] })).toEqual({ [CHECKS.afterEnd]: 1 });
    // A 503 allows only the adapter's longest backoff (200 ms), not a whole second.
    expect(run({ machines: [late([{ at: T + 10_500, status: 503, retry_after_ms: null }])] })).toEqual({ [CHECKS.afterEnd]: 1 });
    // A 429 whose Retry-After is shorter than the overrun still leaves a violation.
    expect(run({ machines: [late([{ at: T + 10_500, status: 429, retry_after_ms: 900 }])] })).toEqual({ [CHECKS.afterEnd]: 1 });
    // A refusal after the machine was destroyed does not count.
    expect(run({ machines: [late([{ at: T + 13_500, status: 429, retry_after_ms: 5_000 }])] })).toEqual({ [CHECKS.afterEnd]: 1 });
  });

  it("counts events without a reason, and stops and destroys in the ledger that no reasoned event explains", () => {
    const noReason = CLEAN_EVENTS.map((e) => (e.type === "stop_requested" ? { ...e, reason: null } : e));
    // The event lacks its reason, and so the ledger's stop is unexplained too.
    expect(run({ events: noReason })).toEqual({ [CHECKS.noReason]: 2 });
    // A second stop after a restart, with no stop request of its own.
    const restarted = machine({
      intervals: [
        { status: "RUNNING", from: T + 120, to: T + 4_010 },
        { status: "EXITED", from: T + 4_010, to: T + 5_000 },
        { status: "RUNNING", from: T + 5_000, to: T + 6_000 },
        { status: "EXITED", from: T + 6_000, to: T + 10_050 },
      ],
    });
    expect(run({ machines: [restarted] })).toEqual({ [CHECKS.noReason]: 1 });
    // A destroy before any release or replacement was requested.
    expect(run({ machines: [machine({ destroyed_at: T + 9_000, intervals: [{ status: "EXITED", from: T + 4_010, to: T + 9_000 }] })] })).toEqual({ [CHECKS.noReason]: 1 });
    // A vanished machine is the cloud's doing, not lessor's.
    expect(run({ machines: [machine({ destroyed_at: T + 9_000, vanished: true, intervals: [{ status: "EXITED", from: T + 4_010, to: T + 9_000 }] })] })).toEqual({});
  });

  it("counts a release that was undone", () => {
    const events = [...CLEAN_EVENTS.slice(0, 4), ev(5, 2_000, "release_requested", "ready", "releasing", "user_end"), ev(6, 1_900, "ready", "booting", "ready"), ...CLEAN_EVENTS.slice(4)];
    const counts = run({ events });
    expect(counts[CHECKS.undone]).toBe(1);
    // The machine kept running and stopped after the user's end: that is counted as well.
    expect(counts[CHECKS.afterEnd]).toBe(1);
  });

  it("counts an index row that disagrees with the object, or is missing", () => {
    const { guard: _g, ...copy } = { ...lease(), guard: null };
    expect(run({ index: { ...copy, state: "stopped" } })).toEqual({ [CHECKS.index]: 1 });
    expect(run({ index: null })).toEqual({ [CHECKS.index]: 1 });
  });

  it("counts labelled machines alive at the end, and leases not released", () => {
    expect(run({ machines: [machine({ status: "RUNNING", destroyed_at: null, intervals: [{ status: "RUNNING", from: T + 120, to: null }] })], lease: { state: "ready", released_at: null, release_reason: null }, events: CLEAN_EVENTS.slice(0, 4) })).toEqual({
      [CHECKS.leftover]: 1,
      [CHECKS.notReleased]: 1,
    });
  });

  it("counts a volume deleted while a machine that mounts it was alive, and one left at the end", () => {
    const vol = (over: Partial<LedgerVolume> = {}): LedgerVolume => ({ id: "sim-v-1", label: `${PREFIX}vol_01m8p0000000000000000000aa`, created_at: T, deleted_at: T + 20_000, ...over });
    // Deleted after the machine was destroyed: fine.
    expect(run({ machines: [machine({ volumes: ["sim-v-1"] })], volumes: [vol()] })).toEqual({});
    // Deleted while it ran.
    expect(run({ machines: [machine({ volumes: ["sim-v-1"] })], volumes: [vol({ deleted_at: T + 2_000 })] })).toEqual({ [CHECKS.volumeMounted]: 1 });
    // Not deleted at the end, with a row and without one.
    expect(run({ volumes: [vol({ deleted_at: null })], rows: [{ id: "vol_01m8p0000000000000000000aa", name: "a" }] })).toEqual({ [CHECKS.volumeLeft]: 1 });
    expect(run({ volumes: [vol({ deleted_at: null })] })).toEqual({ [CHECKS.volumeLeft]: 1 });
  });
});
