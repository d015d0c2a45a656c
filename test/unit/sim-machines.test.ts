import { describe, expect, it } from "vitest";
import { mergeFaults, SIM_DEFAULT_FAULTS } from "../../src/providers/sim/faults";
import {
  advance,
  billingCompleteThrough,
  applyTransitions,
  created,
  destroy,
  diskPrice,
  HOUR_MS,
  hourlyBilling,
  preempt,
  start,
  stop,
  type SimBillable,
  type SimInterval,
  type SimMachineClock,
  type SimTransition,
} from "../../src/providers/sim/machines";
import { nextRandom } from "../../src/random";
import { nextClockChangeAt } from "../../src/providers/sim/webhooks";

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const fresh = (over: Partial<Parameters<typeof created>[1]> = {}) =>
  created(T0, { provision_ms: 500, boot_ms: 1500, boot_fails: false, vanish_after_ms: null, ...over });
const statusAt = (c: SimMachineClock, now: number) => advance(c, now).clock.status;

/** Replays a machine's life from creation, as the cloud stores it. */
function life(clock: SimMachineClock, steps: ((c: SimMachineClock) => { clock: SimMachineClock; transitions: SimTransition[] })[]) {
  let intervals: SimInterval[] = applyTransitions([], [{ status: "PROVISIONING", at: clock.since }]);
  let c = clock;
  for (const step of steps) {
    const r = step(c);
    c = r.clock;
    intervals = applyTransitions(intervals, r.transitions);
  }
  return { clock: c, intervals };
}

describe("a sim machine's status follows the clock", () => {
  it("provisions, boots, then runs", () => {
    const c = fresh();
    expect(statusAt(c, T0)).toBe("PROVISIONING");
    expect(statusAt(c, T0 + 499)).toBe("PROVISIONING");
    expect(statusAt(c, T0 + 500)).toBe("STARTING");
    expect(statusAt(c, T0 + 1999)).toBe("STARTING");
    expect(statusAt(c, T0 + 2000)).toBe("RUNNING");
    const seen = advance(c, T0 + 60_000);
    // Each transition carries the time it happened, not the time it was observed.
    expect(seen.transitions).toEqual([
      { status: "STARTING", at: T0 + 500 },
      { status: "RUNNING", at: T0 + 2000 },
    ]);
    expect(seen.clock.since).toBe(T0 + 2000);
    // Observing again changes nothing.
    expect(advance(seen.clock, T0 + 60_000).transitions).toEqual([]);
  });

  it("ends a failed boot in ERROR, at create and at start", () => {
    expect(statusAt(fresh({ boot_fails: true }), T0 + 2000)).toBe("ERROR");
    const running = advance(fresh(), T0 + 5000).clock;
    const stopped = stop(running, T0 + 6000);
    if (!stopped.ok) throw new Error("stop refused");
    const restarted = start(stopped.clock, T0 + 7000, 1000, true);
    if (!restarted.ok) throw new Error("start refused");
    expect(statusAt(restarted.clock, T0 + 7999)).toBe("STARTING");
    expect(statusAt(restarted.clock, T0 + 8000)).toBe("ERROR");
  });

  it("stops only when running, starts only when stopped, and destroys from anything, idempotently", () => {
    const c = fresh();
    expect(stop(c, T0 + 100)).toEqual({ ok: false, status: "PROVISIONING" });
    expect(stop(c, T0 + 1000)).toEqual({ ok: false, status: "STARTING" });
    expect(start(c, T0 + 5000, 1500, false)).toEqual({ ok: false, status: "RUNNING" });
    const stopped = stop(c, T0 + 5000);
    expect(stopped.ok && stopped.clock.status).toBe("EXITED");
    if (!stopped.ok) return;
    expect(stopped.transitions.map((t) => t.status)).toEqual(["STARTING", "RUNNING", "EXITED"]);
    expect(stop(stopped.clock, T0 + 6000)).toEqual({ ok: false, status: "EXITED" });
    const gone = destroy(stopped.clock, T0 + 7000);
    expect(gone.clock).toMatchObject({ status: "TERMINATED", destroyed_at: T0 + 7000, vanished: false });
    const again = destroy(gone.clock, T0 + 8000);
    expect(again.transitions).toEqual([]);
    expect(again.clock.destroyed_at).toBe(T0 + 7000);
    expect(start(gone.clock, T0 + 9000, 0, false)).toEqual({ ok: false, status: "TERMINATED" });
  });

  it("vanishes a doomed machine its delay after it first runs, without any call", () => {
    const c = fresh({ vanish_after_ms: 10_000 });
    expect(statusAt(c, T0 + 11_999)).toBe("RUNNING");
    const seen = advance(c, T0 + 60_000);
    expect(seen.clock).toMatchObject({ status: "TERMINATED", destroyed_at: T0 + 12_000, vanished: true });
    expect(seen.transitions.at(-1)).toEqual({ status: "TERMINATED", at: T0 + 12_000 });
    // Observed in pieces, it vanishes at the same time.
    const half = advance(c, T0 + 3000).clock;
    expect(half.vanish_at).toBe(T0 + 12_000);
    expect(advance(half, T0 + 60_000).clock.destroyed_at).toBe(T0 + 12_000);
    // A machine that never runs never vanishes.
    expect(statusAt(fresh({ vanish_after_ms: 0, boot_fails: true }), T0 + 60_000)).toBe("ERROR");
  });

  it("vanishes while stopped, too: the host is gone", () => {
    const running = advance(fresh({ vanish_after_ms: 10_000 }), T0 + 5000).clock;
    const stopped = stop(running, T0 + 6000);
    if (!stopped.ok) throw new Error("stop refused");
    expect(advance(stopped.clock, T0 + 20_000).clock).toMatchObject({ status: "TERMINATED", destroyed_at: T0 + 12_000 });
  });

  it("with no delays, runs at once and leaves no zero-length intervals", () => {
    const { clock, intervals } = life(fresh({ provision_ms: 0, boot_ms: 0 }), [(c) => advance(c, T0)]);
    expect(clock.status).toBe("RUNNING");
    expect(intervals).toEqual([{ status: "RUNNING", from: T0, to: null }]);
  });
});

describe("a sim machine's intervals", () => {
  it("record every stretch of its life, closed at each transition", () => {
    const { intervals } = life(fresh(), [
      (c) => advance(c, T0 + 3000),
      (c) => {
        const r = stop(c, T0 + 10_000);
        if (!r.ok) throw new Error("stop refused");
        return r;
      },
      (c) => {
        const r = start(c, T0 + 20_000, 1000, false);
        if (!r.ok) throw new Error("start refused");
        return r;
      },
      (c) => destroy(c, T0 + 30_000),
    ]);
    expect(intervals).toEqual([
      { status: "PROVISIONING", from: T0, to: T0 + 500 },
      { status: "STARTING", from: T0 + 500, to: T0 + 2000 },
      { status: "RUNNING", from: T0 + 2000, to: T0 + 10_000 },
      { status: "EXITED", from: T0 + 10_000, to: T0 + 20_000 },
      { status: "STARTING", from: T0 + 20_000, to: T0 + 21_000 },
      { status: "RUNNING", from: T0 + 21_000, to: T0 + 30_000 },
    ]);
  });
});

describe("the sim's hourly billing", () => {
  const H = Date.UTC(2026, 0, 1, 10, 0, 0);
  const machine = (intervals: SimInterval[], price = 2.5): SimBillable => ({
    id: "sim-m-1",
    label: "x",
    price_per_hour: price,
    disk_price_per_hour: diskPrice(price),
    intervals,
  });

  it("prices the disk at a tenth of the running price, to 4 decimals", () => {
    expect(diskPrice(2.5)).toBe(0.25);
    expect(diskPrice(1.23456)).toBe(0.1235);
  });

  it("splits a run across an hour boundary, to the cent", () => {
    // Runs 10:30 -> 11:15 at $2.50/h: 30 min in the first hour, 15 in the second.
    const m = machine([
      { status: "PROVISIONING", from: H + 29 * 60_000, to: H + 30 * 60_000 },
      { status: "RUNNING", from: H + 30 * 60_000, to: H + 75 * 60_000 },
    ]);
    const records = hourlyBilling([m], 0, H + 10 * HOUR_MS, H + 10 * HOUR_MS);
    expect(records).toEqual([
      {
        record_id: `sim-m-1:${H}`,
        machine_id: "sim-m-1",
        label: "x",
        window_start: H,
        window_end: H + HOUR_MS,
        running_seconds: 1800,
        stopped_seconds: 0,
        amount_usd: 1.25,
      },
      {
        record_id: `sim-m-1:${H + HOUR_MS}`,
        machine_id: "sim-m-1",
        label: "x",
        window_start: H + HOUR_MS,
        window_end: H + 2 * HOUR_MS,
        running_seconds: 900,
        stopped_seconds: 0,
        amount_usd: 0.625,
      },
    ]);
    const total = records.reduce((s, r) => s + r.amount_usd, 0);
    expect(Math.round(total * 100)).toBe(188); // 45 minutes at $2.50/h = $1.875
  });

  it("bills booting as running, stopped and failed as disk, provisioning as nothing", () => {
    const m = machine([
      { status: "PROVISIONING", from: H, to: H + 60_000 },
      { status: "STARTING", from: H + 60_000, to: H + 120_000 },
      { status: "RUNNING", from: H + 120_000, to: H + 600_000 },
      { status: "EXITED", from: H + 600_000, to: H + 1_200_000 },
      { status: "STARTING", from: H + 1_200_000, to: H + 1_260_000 },
      { status: "ERROR", from: H + 1_260_000, to: null },
    ]);
    const [r] = hourlyBilling([m], 0, Infinity, H + HOUR_MS);
    expect(r).toMatchObject({ running_seconds: 60 + 480 + 60, stopped_seconds: 600 + (3600 - 1260) });
    expect(r!.amount_usd).toBeCloseTo((600 / 3600) * 2.5 + (2940 / 3600) * 0.25, 6);
  });

  it("answers closed windows only, and only those overlapping [from, to)", () => {
    const m = machine([{ status: "RUNNING", from: H, to: null }]);
    // At 12:30, 10:00 and 11:00 are closed; 12:00 is not.
    const now = H + 2.5 * HOUR_MS;
    expect(hourlyBilling([m], 0, now, now).map((r) => r.window_start)).toEqual([H, H + HOUR_MS]);
    expect(hourlyBilling([m], H + HOUR_MS, now, now).map((r) => r.window_start)).toEqual([H + HOUR_MS]);
    expect(hourlyBilling([m], 0, H + 1, now).map((r) => r.window_start)).toEqual([H]);
    // The same window answers the same record every time (record ids are deterministic).
    expect(hourlyBilling([m], 0, now, now + 60_000)).toEqual(hourlyBilling([m], 0, now, now));
  });

  it("leaves out windows in which a machine billed nothing", () => {
    const m = machine([{ status: "PROVISIONING", from: H, to: H + 2 * HOUR_MS }]);
    expect(hourlyBilling([m], 0, Infinity, H + 3 * HOUR_MS)).toEqual([]);
  });
});

describe("the sim's faults", () => {
  it("merge a partial update and refuse bad values", () => {
    expect(mergeFaults(SIM_DEFAULT_FAULTS, { api_error_rate: 0.5 })).toEqual({ ok: true, faults: { ...SIM_DEFAULT_FAULTS, api_error_rate: 0.5 } });
    expect(mergeFaults(SIM_DEFAULT_FAULTS, { api_error_rate: 1.5 }).ok).toBe(false);
    expect(mergeFaults(SIM_DEFAULT_FAULTS, { boot_delay_ms: -1 }).ok).toBe(false);
    expect(mergeFaults(SIM_DEFAULT_FAULTS, { nonsense: 1 }).ok).toBe(false);
    expect(mergeFaults(SIM_DEFAULT_FAULTS, { vanish_min_ms: 30_000 }).ok).toBe(false);
    expect(mergeFaults(SIM_DEFAULT_FAULTS, [1]).ok).toBe(false);
  });

  it("draw from a PRNG whose sequence is fixed by its seed", () => {
    const draw = (seed: number, n: number) => {
      const out: number[] = [];
      let s = seed;
      for (let i = 0; i < n; i++) {
        const [v, next] = nextRandom(s);
        out.push(v);
        s = next;
      }
      return out;
    };
    expect(draw(42, 5)).toEqual(draw(42, 5));
    expect(draw(42, 5)).not.toEqual(draw(43, 5));
    for (const v of draw(7, 1000)) expect(v >= 0 && v < 1).toBe(true);
  });
});

describe("the sim's billing settings", () => {
  const H = Date.UTC(2026, 0, 1, 10, 0, 0);
  const m: SimBillable = { id: "sim-m-2", label: "x", price_per_hour: 3.6, disk_price_per_hour: 0.36, intervals: [{ status: "RUNNING", from: H, to: H + 2_500 }] };

  it("windows of any length, aligned to the epoch, priced per real hour", () => {
    const records = hourlyBilling([m], 0, Infinity, H + 10_000, { window_ms: 1_000 });
    expect(records.map((r) => [r.window_start - H, r.running_seconds, r.amount_usd])).toEqual([
      [0, 1, 0.001],
      [1_000, 1, 0.001],
      [2_000, 0.5, 0.0005],
    ]);
    expect(records[0]!.record_id).toBe(`sim-m-2:${H}`);
  });

  it("publishes a window's records only after its delay", () => {
    const opts = { window_ms: 1_000, delay_ms: 5_000 };
    expect(billingCompleteThrough(H + 6_500, opts)).toBe(H + 1_000);
    expect(hourlyBilling([m], 0, Infinity, H + 6_500, opts).map((r) => r.window_start)).toEqual([H]);
    expect(hourlyBilling([m], 0, Infinity, H + 8_000, opts)).toHaveLength(3);
  });

  it("a markup charges more than the price", () => {
    expect(hourlyBilling([m], 0, Infinity, H + 10_000, { window_ms: 1_000, markup: 1 })[0]!.amount_usd).toBe(0.002);
  });
});

describe("spot: a machine taken back (docs/sim.md \"Spot\")", () => {
  it("preempt stops a spot machine for good; its start is refused", () => {
    const r = preempt(fresh(), true, T0 + 3000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.clock).toMatchObject({ status: "EXITED", since: T0 + 3000, interrupted: true });
    expect(r.transitions.at(-1)).toEqual({ status: "EXITED", at: T0 + 3000 });
    expect(start(r.clock, T0 + 4000, 1500, false)).toEqual({ ok: false, status: "EXITED" });
    expect(statusAt(r.clock, T0 + 60_000)).toBe("EXITED");
  });
  it("is refused for a machine not of a spot offer, or one not on its way to running", () => {
    expect(preempt(fresh(), false, T0 + 3000)).toEqual({ ok: false, status: "RUNNING" });
    const stopped = stop(fresh(), T0 + 3000);
    if (!stopped.ok) throw new Error("stop");
    expect(preempt(stopped.clock, true, T0 + 4000)).toEqual({ ok: false, status: "EXITED" });
    expect(preempt(destroy(fresh(), T0 + 100).clock, true, T0 + 200)).toEqual({ ok: false, status: "TERMINATED" });
  });
  it("the fault takes it back preempt_after_ms after it first runs, at that time", () => {
    const doomed = fresh({ preempt_after_ms: 5000 });
    expect(statusAt(doomed, T0 + 6999)).toBe("RUNNING");
    const seen = advance(doomed, T0 + 9000);
    expect(seen.clock).toMatchObject({ status: "EXITED", since: T0 + 7000, interrupted: true, preempt_at: null });
    expect(seen.transitions.map((t) => t.status)).toEqual(["STARTING", "RUNNING", "EXITED"]);
    expect(nextClockChangeAt(advance(doomed, T0 + 2500).clock)).toBe(T0 + 7000);
  });
  it("a stop before the take-back cancels it", () => {
    const running = advance(fresh({ preempt_after_ms: 5000 }), T0 + 3000).clock;
    const stopped = stop(running, T0 + 3000);
    if (!stopped.ok) throw new Error("stop");
    const again = start(stopped.clock, T0 + 4000, 1500, false);
    if (!again.ok) throw new Error("start");
    expect(statusAt(again.clock, T0 + 60_000)).toBe("RUNNING");
  });
});
