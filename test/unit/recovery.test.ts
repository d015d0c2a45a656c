/**
 * A job that survives losing its machine (src/lease/recovery.ts, docs/leases.md "Recovery"): what a
 * loss does, table-tested as decide.ts's deadlines are; which offer a restart rents; what the
 * record becomes between machines; what the policy and the money hold.
 */
import { describe, expect, it } from "vitest";
import { retriesMicros } from "../../src/billing/ceiling";
import { usdToMicros } from "../../src/billing/money";
import type { Offer } from "../../src/catalog/offer";
import { decide } from "../../src/lease/decide";
import { POLICY_DEFAULTS, resolvePolicy, type Recovery } from "../../src/lease/policy";
import { budgetRefused } from "../../src/lease/provision";
import { lossOf, recovers, restartEnv, restartOffers, restartScheduled } from "../../src/lease/recovery";
import { offerRetriesMicros, reservationFor } from "../../src/lease/rent";
import { afterHostFailed, markExited, markReady, rentable } from "../../src/lease/transitions";
import type { LeaseRecord, Observation } from "../../src/lease/state";
import { H, lease, M, machine, offer, S, T0 } from "../support/lease-fixture";

const RECOVERY: Recovery = { on: ["preempted", "host_failed", "provider_lost"], max_restarts: 3, backoff: 30 * S, fallback_on_demand: false };
const spotOffer = (id: string, host: string, spot = true): Offer => ({ ...offer, id: `sim:${id}`, provider_offer_id: id, host_id: host, spot, hourly_usd: spot ? 1 : 2 });
const SPOT = [spotOffer("s1", "h1"), spotOffer("s2", "h2"), spotOffer("s3", "h3")];

/** A ready job on spot offer s1 that recovers with `recovery`. */
function job(patch: Partial<LeaseRecord> = {}, recovery: Recovery | null = RECOVERY): LeaseRecord {
  return lease("ready", {
    kind: "job",
    cmd: "echo hi",
    ttl_deadline: null,
    spec: { gpu: "l40s:1", spot: true },
    offers: SPOT,
    policy: { ...POLICY_DEFAULTS.job, recovery },
    ...patch,
  });
}

const preempted: Observation = { machine: { ...machine("stopped"), preempted: true } };
const gone: Observation = { machine: null };
const failed: Observation = { machine: machine("error") };
const running: Observation = { machine: machine("running"), app_ready: true };

interface Row {
  name: string;
  lease: LeaseRecord;
  obs: Observation;
  action: string;
  reason: string | null;
}

const rows: Row[] = [
  { name: "preempted, restarts left: recover", lease: job(), obs: preempted, action: "recover", reason: "preempted" },
  { name: "host failed, restarts left: recover", lease: job(), obs: failed, action: "recover", reason: "host_failed" },
  { name: "machine gone, restarts left: recover", lease: job(), obs: gone, action: "recover", reason: "provider_lost" },
  { name: "the last restart used: released with the loss", lease: job({ restarts: 3 }), obs: preempted, action: "release", reason: "preempted" },
  { name: "a loss the policy does not name: released", lease: job({}, { ...RECOVERY, on: ["preempted"] }), obs: failed, action: "release", reason: "host_failed" },
  { name: "no recovery (as before): a preempted machine releases", lease: job({}, null), obs: preempted, action: "release", reason: "preempted" },
  { name: "no recovery: a lost machine releases provider_lost", lease: job({}, null), obs: gone, action: "release", reason: "provider_lost" },
  { name: "max_restarts 0: released at the first loss", lease: job({}, { ...RECOVERY, max_restarts: 0 }), obs: gone, action: "release", reason: "provider_lost" },
  { name: "a scratch lease never recovers", lease: job({ kind: "scratch" }), obs: preempted, action: "release", reason: "preempted" },
  { name: "a stopped machine not taken back is a stop, as before", lease: job(), obs: { machine: machine("stopped") }, action: "mark_stopped", reason: "provider_stopped" },
  { name: "a booting spot machine taken back, restarts left: recover", lease: job({ state: "booting", ready_at: null }), obs: preempted, action: "recover", reason: "preempted" },
  { name: "a booting spot machine taken back, no recovery: another host", lease: job({ state: "booting", ready_at: null }, null), obs: preempted, action: "replace_host", reason: "preempted" },
  { name: "a stopped machine taken back: released, it never starts again", lease: job({ state: "stopped" }), obs: preempted, action: "release", reason: "preempted" },
  { name: "a starting machine taken back: released", lease: job({ state: "starting" }), obs: preempted, action: "release", reason: "preempted" },
  { name: "a hard cap due with the loss wins", lease: job({ session_started_at: T0 - 24 * H }), obs: preempted, action: "release", reason: "max_lifetime" },
];

describe("decide: a job's loss", () => {
  for (const r of rows) {
    it(r.name, () => {
      const d = decide(r.lease, r.obs, T0 + S);
      expect({ action: d.action, reason: d.reason }).toEqual({ action: r.action, reason: r.reason });
    });
  }

  it("a lease out of hosts after a spot machine was taken back while booting is released preempted, not host_failed", () => {
    const booting = job({ state: "booting", offers: [SPOT[0]!], policy: { ...POLICY_DEFAULTS.job, recovery: null } });
    expect(afterHostFailed(booting, "h1", "preempted", () => true, T0).effect).toMatchObject({ event: "release_requested", reason: "preempted" });
    expect(afterHostFailed(booting, "h1", "boot_timeout", () => true, T0).effect).toMatchObject({ reason: "host_failed" });
  });

  it("reads the loss from the observation", () => {
    expect(lossOf(preempted)).toBe("preempted");
    expect(lossOf(gone)).toBe("provider_lost");
    expect(lossOf(failed)).toBe("host_failed");
    expect(lossOf(running)).toBeNull();
    expect(lossOf({ machine: undefined })).toBeNull();
    expect(recovers(job(), "ttl_expired")).toBe(false);
  });
});

describe("restartOffers", () => {
  it("tries the offers after the lost one, the lost one last", () => {
    expect(restartOffers(job({ offer_index: 1 }), "preempted")!.offers.map((o) => o.provider_offer_id)).toEqual(["s3", "s1", "s2"]);
  });
  it("excludes a host that failed or lost the machine, never one that took it back", () => {
    expect(restartOffers(job(), "host_failed")).toEqual({ offers: [SPOT[1], SPOT[2]], excluded_hosts: ["h1"] });
    expect(restartOffers(job(), "provider_lost")!.excluded_hosts).toEqual(["h1"]);
    expect(restartOffers(job(), "preempted")!.excluded_hosts).toEqual([]);
  });
  it("puts spot before on-demand for a spot job (fallback_on_demand)", () => {
    const offers = [spotOffer("s1", "h1"), spotOffer("s2", "h2"), spotOffer("d1", "h4", false), spotOffer("d2", "h5", false)];
    expect(restartOffers(job({ offers, offer_index: 1 }), "preempted")!.offers.map((o) => o.provider_offer_id)).toEqual(["s1", "s2", "d1", "d2"]);
    // On an on-demand offer already, spot is tried again first.
    expect(restartOffers(job({ offers, offer_index: 2 }), "host_failed")!.offers.map((o) => o.provider_offer_id)).toEqual(["s1", "s2", "d2"]);
  });
  it("none left: null", () => {
    expect(restartOffers(job({ offers: [SPOT[0]!] }), "host_failed")).toBeNull();
  });
});

describe("restartScheduled", () => {
  const now = T0 + 10 * M;
  const step = restartScheduled(job({ attempt: 2, machine_ids: ["m0", "m1"] }), "preempted", () => true, now)!;

  it("drops the machine, keeps the lease, and waits the backoff in provisioning", () => {
    expect(step.next).toMatchObject({
      id: "ls_test", state: "provisioning", state_since: now, machine_id: null, label: null, machine_status: null,
      retry_at: now + 30 * S, restarts: 1, attempt: 2, attempt_base: 2, lost_at: now, job: null, ready_at: null, offer_index: 0,
      provider: "sim", hourly_usd: 1,
    });
    // Every machine it used stays for the receipt.
    expect(step.next.machine_ids).toEqual(["m0", "m1"]);
    expect(step.next.offers.map((o) => o.provider_offer_id)).toEqual(["s2", "s3", "s1"]);
  });

  it("records the attempt that ended: its loss, machine and machine time", () => {
    expect(step.effect).toMatchObject({ event: "attempt_ended", reason: "preempted", detail: { attempt: 1, restart: 1, machine_id: "m1", machine_ms: 10 * M, next_offer: "sim:s2" } });
  });

  it("gives the next attempt host_attempts of its own, while labels keep counting", () => {
    expect(rentable(step.next)).toEqual({ offer: SPOT[1] });
    expect(rentable({ ...step.next, attempt: 2 + 3 })).toMatchObject({ release: "host_failed" });
  });

  it("the new machine running ends the recovery: the ready event says how long it took", () => {
    const booting = { ...step.next, state: "booting", machine_id: "m2", session_started_at: now + 31 * S } as const;
    const ready = markReady(booting as never, now + 40 * S);
    expect(ready.effect).toEqual({ event: "ready", detail: { restart: 1, loss_to_running_ms: 40 * S } });
    expect(ready.next.lost_at).toBeNull();
    expect(markReady(job({ state: "booting" }) as never, now).effect).toEqual({ event: "ready" });
  });

  it("the exit says which attempt it is", () => {
    const exited = markExited({ ...step.next, restarts: 2 }, { code: 0, signal: null, at: now });
    expect(exited.effect.detail).toMatchObject({ code: 0, attempt: 3 });
    expect(markExited({ ...step.next, session_started_at: now - 5 * S }, { code: 0, signal: null, at: now }).effect.detail).toMatchObject({ machine_ms: 5 * S });
  });

  it("LESSOR_RESTART: the restarts before this attempt, only for a job that recovers", () => {
    expect(restartEnv(job())).toEqual({ LESSOR_RESTART: "0" });
    expect(restartEnv(step.next)).toEqual({ LESSOR_RESTART: "1" });
    expect(restartEnv(job({}, null))).toEqual({});
  });

  it("a restart refused by the org's caps ends over_budget", () => {
    expect(budgetRefused(step.next, SPOT[1]!, {}, now).effect.reason).toBe("over_budget");
    expect(budgetRefused(job(), SPOT[1]!, {}, now).effect.reason).toBe("budget_exceeded");
  });
});

describe("money: every allowed restart is held", () => {
  const base = { host_attempts: 3, boot_timeout: 10 * M, increment_ms: 1000, hourly_usd: 1 };
  it("under max_lifetime, each restart is a session of its own", () => {
    const none = retriesMicros({ ...base, basis: "max_lifetime" });
    const three = retriesMicros({ ...base, basis: "max_lifetime", restarts: 3, session_ms: 24 * H });
    expect(three - 4 * none).toBe(3 * usdToMicros(24));
  });
  it("under a ttl, a restart adds only its rounding", () => {
    expect(retriesMicros({ ...base, basis: "ttl", restarts: 3, session_ms: 24 * H })).toBe((4 * 2 + 3) * Math.round(usdToMicros(1) / 3600));
  });
  it("admission holds them all; a restart re-reserves nothing while they fit", () => {
    const policy = { ...POLICY_DEFAULTS.job, recovery: RECOVERY };
    expect(offerRetriesMicros(SPOT[0]!, policy)).toBeGreaterThan(offerRetriesMicros(SPOT[0]!, { ...policy, recovery: null }) + usdToMicros(3 * 24) - 1);
    // Mid-month: what a restart holds is counted by month, and a boundary moves a session's hours between two.
    const t = Date.UTC(2026, 10, 10);
    const fresh = { reserved: null, hourly_usd: 1, billing: { status: "accruing" as const, segments: [], receipt_id: null, actual_micro_usd: null } };
    const admitted = reservationFor(job(fresh), { kind: "rent", offer: SPOT[0]! }, t)!;
    const ran = { status: "accruing" as const, segments: [{ from: t, to: null, kind: "running" as const, rate: 1_000_000 }], receipt_id: null, actual_micro_usd: null };
    const restarted = restartScheduled(job({ reserved: admitted, hourly_usd: 1, session_started_at: t, billing: ran }), "preempted", () => true, t + H)!.next;
    expect(reservationFor(restarted, { kind: "rent", offer: SPOT[1]! }, t + H + 30 * S)).toBeNull();
    // Without recovery held at admission, the restart would need more.
    const unheld = reservationFor(job({ ...fresh, policy: { ...POLICY_DEFAULTS.job, recovery: null } }), { kind: "rent", offer: SPOT[0]! }, t)!;
    expect(reservationFor({ ...restarted, reserved: unheld }, { kind: "rent", offer: SPOT[1]! }, t + H + 30 * S)).not.toBeNull();
  });
});

describe("the policy", () => {
  it("defaults and renders", () => {
    expect(resolvePolicy("job", { recovery: { on: ["preempted"] } }).recovery).toEqual({ on: ["preempted"], max_restarts: 3, backoff: 30 * S, fallback_on_demand: false });
    expect(resolvePolicy("job").recovery).toBeUndefined();
    expect(resolvePolicy("job", { recovery: null }).recovery).toBeNull();
  });
  it("is a job's only", () => {
    expect(() => resolvePolicy("scratch", { recovery: { on: ["preempted"] } })).toThrow(/only a job/);
  });
  it("bounds the backoff", () => {
    expect(() => resolvePolicy("job", { recovery: { on: ["preempted"], backoff: "2h" } })).toThrow(/at most/);
  });
});
