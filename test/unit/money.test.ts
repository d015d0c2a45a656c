/**
 * Money: the pure decisions behind it. What worst case a lease holds, by the month it
 * accrues in (src/billing/ceiling.ts); what an action needs reserved first, and which offer, from
 * which provider, a lease rents next (src/lease/rent.ts); a stopped lease whose machine runs is
 * stopped again (src/lease/decide.ts).
 */
import { describe, expect, it } from "vitest";
import { fitsIn, REPLACE_LAG_MS, replacing, retriesMicros, settled, stoppedDiskMicros, totalOf, worstCase, type Reservation, type RetriesInput } from "../../src/billing/ceiling";
import { admissionReservation } from "../../src/billing/budget";
import type { Offer } from "../../src/catalog/offer";
import { decide } from "../../src/lease/decide";
import { POLICY_DEFAULTS } from "../../src/lease/policy";
import { driftOf, following, nextOfferOf, offerRetriesMicros, priced, QUOTE_DRIFT_TOLERANCE, rentedAboveReserved, rentedHourlyUsd, rentedReservation, reservationFor, worstCaseAfter } from "../../src/lease/rent";
import { LAMBDA_BILLING_INCREMENT_MS } from "../../src/providers/lambda/adapter";
import { RUNPOD_BILLING_INCREMENT_MS } from "../../src/providers/runpod/adapter";
import { SIM_BILLING_INCREMENT_MS } from "../../src/providers/sim/adapter";
import { VAST_BILLING_INCREMENT_MS } from "../../src/providers/vast/adapter";
import type { LeaseRecord, LeaseState } from "../../src/lease/state";
import type { Machine } from "../../src/providers/contract";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
/** An hour before a month ends. */
const T0 = Date.UTC(2026, 10, 30, 23, 0, 0);

const offer = (id: string, provider: string, host: string, hourly: number): Offer => ({
  id: `${provider}:${id}`, provider, provider_offer_id: id, gpu: "l4", gpu_count: 1, vram_gb: 24, vcpu: 8,
  memory_gb: 32, disk_gb: 100, region: "us", host_id: host, hourly_usd: hourly, availability: "high", spot: false,
});

/** A ttl release's wait for the outputs (the default outputs_wait, 5 minutes) at `microsPerHour`. */
const outputsWaitMicros = (microsPerHour: number) => Math.round(microsPerHour / 12);

function lease(state: LeaseState, patch: Partial<LeaseRecord> = {}): LeaseRecord {
  return {
    id: "ls_test", org_id: "org_test", kind: "scratch", state, state_since: T0,
    policy: { ...POLICY_DEFAULTS.scratch, ttl: 4 * H, max_lifetime: 24 * H },
    spec: null, quote_id: null, offers: [offer("a", "sim", "h1", 2), offer("b", "runpod", "h2", 3), offer("c", "sim", "h1", 1)],
    offer_index: 0, excluded_hosts: [], attempt: 1, provider: "sim", can_stop: true, machine_id: "m1", label: "l",
    machine_status: "running", observed_at: T0, hourly_usd: 2, stopped_hourly_usd: 0, machine_ids: ["m1"],
    billing: { status: "accruing", segments: [], receipt_id: null, actual_micro_usd: null },
    reconcile_required: false, retry_at: null, created_at: T0, session_started_at: T0, ready_at: T0,
    ttl_deadline: T0 + 4 * H, last_activity_at: T0, lock_until: null, stopped_at: null, stop_failing_since: null,
    stop_issued_at: null, release_reason: null, released_at: null, image: null, cmd: null, warnings: [], version: 1,
    ...patch,
  } as LeaseRecord;
}

describe("worst case by month (ceiling.ts)", () => {
  it("a lease that spans a month boundary counts each part in the month it accrues in", () => {
    const r = admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0);
    expect(r).toEqual({ hourly_micro_usd: 2_000_000, unbounded: false, months: { "2026-11": 2_000_000, "2026-12": 6_000_000 } });
    expect(totalOf(r)).toBe(8_000_000);
  });

  it("what accrued stays in its month; what may still accrue runs from now to the hard end", () => {
    const segments = [{ from: T0 - H, to: T0 + 30 * M, kind: "running" as const, rate: 2_000_000 }];
    const r = worstCase({ segments, hourly_usd: 2, ttl_deadline: T0 + 2 * H, max_lifetime: null, session_start: T0 + 30 * M }, T0 + 30 * M);
    // 1.5 h accrued in November at $2, then half an hour more of November and an hour of December to the ttl.
    expect(r.months).toEqual({ "2026-11": 3_000_000 + 1_000_000, "2026-12": 2_000_000 });
  });

  it("nothing caps it: unbounded; no session running (stopped): only what accrued", () => {
    expect(worstCase({ segments: [], hourly_usd: 2, ttl_deadline: null, max_lifetime: null, session_start: T0 }, T0).unbounded).toBe(true);
    expect(worstCase({ segments: [], hourly_usd: 2, ttl_deadline: null, max_lifetime: null, session_start: null }, T0)).toEqual({
      hourly_micro_usd: 2_000_000, unbounded: false, months: { "2026-11": 0 },
    });
  });

  it("fits in what is reserved only with no higher rate and no month asking for more", () => {
    const held: Reservation = { hourly_micro_usd: 2_000_000, unbounded: false, months: { "2026-11": 5_000_000 } };
    expect(fitsIn({ ...held, months: { "2026-11": 5_000_000 } }, held)).toBe(true);
    expect(fitsIn({ ...held, months: { "2026-11": 6_000_000 } }, held)).toBe(false);
    expect(fitsIn({ ...held, months: { "2026-12": 1_000_000 } }, held)).toBe(false);
    expect(fitsIn({ ...held, hourly_micro_usd: 3_000_000 }, held)).toBe(false);
    expect(fitsIn({ ...held, unbounded: true }, held)).toBe(false);
    expect(fitsIn(held, null)).toBe(false);
  });

  it("a re-reservation zeroes the months only the old one held; a released lease holds what it accrued", () => {
    const held: Reservation = { hourly_micro_usd: 1, unbounded: false, months: { "2026-11": 5, "2026-12": 5 } };
    expect(replacing({ hourly_micro_usd: 1, unbounded: false, months: { "2026-11": 7 } }, held).months).toEqual({ "2026-11": 7, "2026-12": 0 });
    const segments = [{ from: T0 - H, to: T0 + 2 * H, kind: "running" as const, rate: 2_000_000 }];
    expect(settled(segments, held, T0 + 2 * H).months).toEqual({ "2026-11": 4_000_000, "2026-12": 2_000_000 });
  });
});

describe("what the kept disk may bill while stopped (ceiling.ts)", () => {
  const CASES: [string, number | undefined, number | null, number | null][] = [
    ["a stop ends billing (no stopped rate)", undefined, 24 * H, 0],
    ["a zero stopped rate", 0, null, 0],
    ["the stopped rate for the whole stopped_ttl", 0.05, 24 * H, 1_200_000],
    ["one millisecond of stopped_ttl", 3.6, 1, 1],
    ["no stopped_ttl where a stopped disk bills: nothing bounds it", 0.05, null, null],
  ];
  it.each(CASES)("%s", (_name, rate, stoppedTtl, micros) => {
    expect(stoppedDiskMicros(rate, stoppedTtl)).toBe(micros);
  });

  it("is reserved beside the compute, in the month of the reservation; unbounded when nothing ends it", () => {
    const r = admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0, 1_200_000);
    expect(r.months).toEqual({ "2026-11": 2_000_000 + 1_200_000, "2026-12": 6_000_000 });
    expect(totalOf(r)).toBe(8_000_000 + 1_200_000);
    expect(admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0, 0)).toEqual(admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0));
    expect(admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0, null).unbounded).toBe(true);
  });

  it("a re-reservation counts it as admission did: what the lease holds still covers it; a larger disk rate asks again", () => {
    const now = T0 + H;
    const withDisk = (o: Offer, rate: number): Offer => ({ ...o, stopped_hourly_usd: rate });
    const base = lease("provisioning", { session_started_at: null, ttl_deadline: now + 4 * H });
    const l = { ...base, offers: base.offers.map((o) => withDisk(o, 0.05)) };
    const held = { ...l, reserved: worstCaseAfter(l, { kind: "start" }, now) };
    // And what replacing hosts may add: the sim bills by the millisecond, so a micro-dollar or two.
    const retries = offerRetriesMicros(l.offers[0]!, l.policy);
    expect(retries).toBe(2);
    // The ttl's release may hold the machine 5 minutes more for the outputs (policy.outputs_wait).
    const wait = outputsWaitMicros(2_000_000);
    expect(totalOf(held.reserved)).toBe(8_000_000 + wait + 1_200_000 + retries);
    expect(reservationFor(held, { kind: "rent", offer: withDisk(offer("c", "sim", "h3", 1), 0.05) }, now)).toBeNull();
    expect(totalOf(reservationFor(held, { kind: "rent", offer: withDisk(offer("a", "sim", "h3", 2), 0.1) }, now)!)).toBe(8_000_000 + wait + 2_400_000 + retries);
  });
});

describe("what replacing failed hosts may add (ceiling.ts retriesMicros)", () => {
  const base: RetriesInput = { host_attempts: 3, boot_timeout: 10 * M, basis: "ttl", increment_ms: S, hourly_usd: 3.6 };
  // $3.60 an hour is a micro-dollar a millisecond: each figure below is the billed milliseconds.
  const CASES: [string, Partial<RetriesInput>, number][] = [
    ["one host: nothing is replaced", { host_attempts: 1 }, 0],
    ["two hosts: one replaced, one increment", { host_attempts: 2 }, S],
    ["three hosts: two increments", {}, 2 * S],
    ["ten hosts: nine", { host_attempts: 10 }, 9 * S],
    ["a minute's increment (Lambda)", { increment_ms: LAMBDA_BILLING_INCREMENT_MS }, 2 * M],
    ["a millisecond's (the sim)", { increment_ms: SIM_BILLING_INCREMENT_MS }, 2],
    ["no increment is taken as a millisecond", { increment_ms: 0 }, 2],
    ["max_lifetime: each failed boot's boot_timeout and the destroy's minute", { basis: "max_lifetime" }, 2 * (10 * M + REPLACE_LAG_MS)],
    ["max_lifetime, a boot_timeout plus the lag a whole number of increments: not rounded", { basis: "max_lifetime", increment_ms: M }, 2 * 11 * M],
    ["max_lifetime, a second more: rounded up a whole increment", { basis: "max_lifetime", increment_ms: M, boot_timeout: 10 * M + S }, 2 * 12 * M],
    ["max_lifetime, one host: nothing", { basis: "max_lifetime", host_attempts: 1 }, 0],
    ["no cap counts per session, as max_lifetime", { basis: null }, 2 * 11 * M],
    ["a free offer: nothing", { hourly_usd: 0 }, 0],
  ];
  it.each(CASES)("%s", (_name, patch, micros) => {
    expect(retriesMicros({ ...base, ...patch })).toBe(micros);
  });

  it("each provider's increment: RunPod and Vast by the second, Lambda by the minute, the sim by the millisecond", () => {
    const policy = { ...POLICY_DEFAULTS.scratch, ttl: 4 * H };
    expect([RUNPOD_BILLING_INCREMENT_MS, VAST_BILLING_INCREMENT_MS, LAMBDA_BILLING_INCREMENT_MS, SIM_BILLING_INCREMENT_MS]).toEqual([S, S, M, 1]);
    expect(offerRetriesMicros(offer("a", "runpod", "h", 3.6), policy)).toBe(2 * S);
    expect(offerRetriesMicros(offer("a", "vast", "h", 3.6), policy)).toBe(2 * S);
    expect(offerRetriesMicros(offer("a", "lambda", "h", 3.6), policy)).toBe(2 * M);
    expect(offerRetriesMicros(offer("a", "sim", "h", 3.6), policy)).toBe(2);
    // A provider without an adapter is taken to bill by the hour.
    expect(offerRetriesMicros(offer("a", "elsewhere", "h", 3.6), policy)).toBe(2 * H);
    // The basis is the policy's: no ttl leaves max_lifetime, and the failed boots count whole.
    expect(offerRetriesMicros(offer("a", "runpod", "h", 3.6), { ...policy, ttl: null })).toBe(2 * 11 * M);
  });

  it("is reserved beside the compute and the stopped disk, in the month of the reservation", () => {
    const r = admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0, 1_200_000, 7);
    expect(r.months).toEqual({ "2026-11": 2_000_000 + 1_200_000 + 7, "2026-12": 6_000_000 });
    expect(admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0, 0, 0)).toEqual(admissionReservation(2, { ttl: 4 * H, max_lifetime: 24 * H }, T0));
  });
});

describe("what an action needs reserved first (rent.ts)", () => {
  const now = T0 + H; // a December session, for months that do not split
  const held = (l: LeaseRecord) => ({ ...l, reserved: worstCaseAfter(l, { kind: "start" }, now) });

  it("extend: by more than the lease holds asks again; a stopped lease asks nothing until it starts", () => {
    const l = held(lease("ready", { session_started_at: now, policy: { ...POLICY_DEFAULTS.scratch, ttl: 4 * H, max_lifetime: null }, ttl_deadline: now + 4 * H }));
    expect(reservationFor(l, { kind: "extend", ttl_deadline: now + 5 * H }, now)?.months).toEqual({ "2026-12": 10_000_000 + outputsWaitMicros(2_000_000) + offerRetriesMicros(l.offers[0]!, l.policy) });
    // max_lifetime caps what an extension can add.
    const capped = held(lease("ready", { session_started_at: now, ttl_deadline: now + 4 * H, policy: { ...POLICY_DEFAULTS.scratch, ttl: 4 * H, max_lifetime: 4 * H } }));
    expect(reservationFor(capped, { kind: "extend", ttl_deadline: now + 366 * 24 * H }, now)).toBeNull();
    expect(reservationFor({ ...l, state: "stopped" } as LeaseRecord, { kind: "extend", ttl_deadline: now + 500 * H }, now)).toBeNull();
  });

  it("start: a fresh session on top of what the lease already ran", () => {
    const segments = [{ from: now - H, to: now - 1, kind: "running" as const, rate: 2_000_000 }];
    const l = lease("stopped", { ttl_deadline: null, policy: { ...POLICY_DEFAULTS.job, max_lifetime: H }, billing: { ...lease("stopped").billing, segments } });
    const first = { ...l, reserved: worstCase({ segments: [], hourly_usd: 2, ttl_deadline: null, max_lifetime: H, session_start: now - H }, now - H) };
    // Under max_lifetime a failed boot bills outside the session: two of them, 11 minutes each at $2.
    expect(offerRetriesMicros(l.offers[0]!, l.policy)).toBe(2 * 366_667);
    expect(totalOf(reservationFor(first, { kind: "start" }, now)!)).toBe(4_000_000 - 1 + 2 * 366_667);
  });

  it("rent: a pricier offer asks again; one within the reserved rate and time does not", () => {
    const l = held(lease("provisioning", { session_started_at: null, ttl_deadline: now + 4 * H }));
    expect(reservationFor(l, { kind: "rent", offer: offer("c", "sim", "h3", 1) }, now)).toBeNull();
    expect(reservationFor(l, { kind: "rent", offer: offer("b", "runpod", "h2", 3) }, now)?.hourly_micro_usd).toBe(3_000_000);
  });

  it("rent from a quote: each offer counts at the most the quote lets it be rented for", () => {
    const l = held(lease("provisioning", { session_started_at: null, ttl_deadline: now + 4 * H, quote_id: "qt_1" }));
    expect(driftOf(l)).toBe(QUOTE_DRIFT_TOLERANCE);
    expect(reservationFor(l, { kind: "rent", offer: offer("b", "runpod", "h2", 3) }, now)?.hourly_micro_usd).toBe(3_150_000);
    expect(priced(offer("b", "runpod", "h2", 3), 0).hourly_usd).toBe(3);
  });

  it("rented: a machine billed above the rate held re-reserves at its price, with its offer's own bandwidth", () => {
    const vast = { ...offer("v", "vast", "h4", 2), inet_down_usd_per_gb: 0.01, inet_up_usd_per_gb: 0.02 };
    // Reserved at the offer's $2 and its $0.14 of bandwidth an hour.
    const l = held(lease("booting", { offers: [vast], provider: "vast", state_since: now, session_started_at: now, ttl_deadline: now + 4 * H }));
    expect(l.reserved.hourly_micro_usd).toBe(2_140_000);
    expect(rentedAboveReserved(l)).toBe(false);
    expect(rentedReservation(l, now)).toBeNull();
    // The provider rents it at $2.50.
    const pricier = { ...l, hourly_usd: 2.5 };
    expect(rentedHourlyUsd(pricier)).toBeCloseTo(2.64, 9);
    expect(rentedAboveReserved(pricier)).toBe(true);
    const need = rentedReservation(pricier, now)!;
    expect(need.hourly_micro_usd).toBe(2_640_000);
    expect(totalOf(need)).toBe(4 * 2_640_000 + outputsWaitMicros(2_640_000) + offerRetriesMicros(vast, l.policy));
    // A lease stored before it kept what it holds re-reserves on its next costly action instead.
    expect(rentedAboveReserved({ ...pricier, reserved: undefined })).toBe(false);
    // decide: due before the lease goes on (not marked ready), and not while the rate is held.
    const running: Machine = { id: "m1", label: "l", status: "running", offer_id: "v", host_id: "h4", region: "us", hourly_usd: 2.5, stopped_hourly_usd: 0, created_at: now };
    expect(decide(pricier, { machine: running, app_ready: true }, now + S)).toMatchObject({ action: "reserve" });
    expect(decide(l, { machine: running, app_ready: true }, now + S)).toMatchObject({ action: "mark_ready" });
    expect(decide({ ...pricier, state: "ready" } as LeaseRecord, { machine: running }, now + S)).toMatchObject({ action: "reserve" });
  });
});

describe("which offer next, from which provider (rent.ts)", () => {
  it("skips excluded hosts, and the lease follows the offer's provider, capabilities and price", () => {
    const l = lease("booting");
    const next = nextOfferOf(l, "h1");
    expect(next).toMatchObject({ index: 1, excluded: ["h1"], offer: { provider: "runpod" } });
    expect(following(next.offer!, (p) => p !== "runpod")).toEqual({ provider: "runpod", can_stop: false, hourly_usd: 3 });
    expect(nextOfferOf({ ...l, offer_index: 1, excluded_hosts: ["h1"] }, "h2").offer).toBeNull(); // h1's offer is excluded too
    expect(nextOfferOf({ ...l, attempt: l.policy.host_attempts }, "h1").offer).toBeNull();
  });
});

describe("a stopped lease whose machine runs again (decide.ts)", () => {
  const m = (status: Machine["status"]): Machine => ({
    id: "m1", label: "l", status, offer_id: "a", host_id: "h1", region: "us", hourly_usd: 2, stopped_hourly_usd: 0, created_at: T0,
  });
  it("is stopped again at once, with reason unexpected_start", () => {
    const l = lease("stopped", { stopped_at: T0 });
    for (const status of ["running", "starting", "provisioning"] as const) {
      expect(decide(l, { machine: m(status) }, T0 + M)).toMatchObject({ action: "stop", reason: "unexpected_start", at: T0 + M });
    }
    expect(decide(l, { machine: m("stopped") }, T0 + M).action).toBe("wait");
  });
});
