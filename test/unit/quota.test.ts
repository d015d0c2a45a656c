/** The GPU quota's rule (src/lease/quota.ts), each cap on both sides of its boundary. */
import { describe, expect, it } from "vitest";
import { quotaRefused, rentPlan } from "../../src/lease/provision";
import { gpusOf, gpusToHold, heldGpus, quotaMessage, quotaVerdict, type GpuAsk, type GpuHold, type GpuQuota, type QuotaVerdict } from "../../src/lease/quota";
import { lease, offer, T0 } from "../support/lease-fixture";

const hold = (lease_id: string, kind: GpuHold["kind"], gpus: number, created_at: number): GpuHold => ({ lease_id, kind, gpus, created_at });
const Q = (gpus: number, per_kind: GpuQuota["per_kind"] = {}): GpuQuota => ({ gpus, per_kind });

const OLD_SCRATCH = hold("ls_a", "scratch", 2, 100);
const NEW_SCRATCH = hold("ls_b", "scratch", 1, 200);
const JOB = hold("ls_c", "job", 2, 300);
const DEPLOYMENT = hold("ls_d", "deployment", 1, 400);
const ALL = [OLD_SCRATCH, NEW_SCRATCH, JOB, DEPLOYMENT]; // 6 GPUs held

const admitted = (...preempt: GpuHold[]): QuotaVerdict => ({ ok: true, preempt });
const refused = (cap: "gpus" | `per_kind.${GpuHold["kind"]}`, limit: number, held: number, requested: number): QuotaVerdict => ({ ok: false, cap, limit, held, requested });

const CASES: [string, GpuQuota | null, GpuHold[], GpuAsk, QuotaVerdict][] = [
  ["no quota", null, ALL, { kind: "scratch", gpus: 100 }, admitted()],
  ["a CPU lease under a full quota", Q(6), ALL, { kind: "scratch", gpus: 0 }, admitted()],
  ["fits exactly", Q(7), ALL, { kind: "scratch", gpus: 1 }, admitted()],
  ["one GPU over, scratch", Q(6), ALL, { kind: "scratch", gpus: 1 }, refused("gpus", 6, 6, 1)],
  ["one GPU over, a job never displaces", Q(6), ALL, { kind: "job", gpus: 1 }, refused("gpus", 6, 6, 1)],
  ["an empty org, asking exactly the quota", Q(2), [], { kind: "job", gpus: 2 }, admitted()],
  ["an empty org, asking one more than the quota", Q(2), [], { kind: "deployment", gpus: 3 }, refused("gpus", 2, 0, 3)],
  ["a deployment one over: the newest scratch goes", Q(6), ALL, { kind: "deployment", gpus: 1 }, admitted(NEW_SCRATCH)],
  ["a deployment needing more than the newest frees: the next newest too", Q(6), ALL, { kind: "deployment", gpus: 2 }, admitted(NEW_SCRATCH, OLD_SCRATCH)],
  ["a deployment needing exactly every scratch GPU", Q(6), ALL, { kind: "deployment", gpus: 3 }, admitted(NEW_SCRATCH, OLD_SCRATCH)],
  ["a deployment needing one more than every scratch GPU: none displaced", Q(6), ALL, { kind: "deployment", gpus: 4 }, refused("gpus", 6, 6, 4)],
  ["a deployment never displaces a job or a deployment", Q(3), [JOB, DEPLOYMENT], { kind: "deployment", gpus: 1 }, refused("gpus", 3, 3, 1)],
  ["a deployment that fits displaces nothing", Q(7), ALL, { kind: "deployment", gpus: 1 }, admitted()],
  ["of two scratch leases made in one millisecond, the later id goes first", Q(2), [hold("ls_x", "scratch", 1, 5), hold("ls_y", "scratch", 1, 5)], { kind: "deployment", gpus: 1 }, admitted(hold("ls_y", "scratch", 1, 5))],
  ["a scratch lease without GPUs is not displaced", Q(1), [hold("ls_cpu", "scratch", 0, 9), hold("ls_g", "scratch", 1, 1)], { kind: "deployment", gpus: 1 }, admitted(hold("ls_g", "scratch", 1, 1))],
  ["a kind's cap met exactly", Q(100, { job: 3 }), ALL, { kind: "job", gpus: 1 }, admitted()],
  ["a kind's cap passed by one", Q(100, { job: 3 }), ALL, { kind: "job", gpus: 2 }, refused("per_kind.job", 3, 2, 2)],
  ["another kind's cap does not count", Q(100, { job: 0 }), ALL, { kind: "scratch", gpus: 5 }, admitted()],
  ["a deployment over its kind's cap displaces nothing", Q(6, { deployment: 1 }), ALL, { kind: "deployment", gpus: 1 }, refused("per_kind.deployment", 1, 1, 1)],
  ["a deployment within its kind's cap, over the total, displaces", Q(6, { deployment: 2 }), ALL, { kind: "deployment", gpus: 1 }, admitted(NEW_SCRATCH)],
  ["within a kind's cap, over the total", Q(6, { scratch: 10 }), ALL, { kind: "scratch", gpus: 1 }, refused("gpus", 6, 6, 1)],
];

describe("quotaVerdict", () => {
  it.each(CASES)("%s", (_name, quota, held, ask, verdict) => {
    expect(quotaVerdict(quota, held, ask)).toEqual(verdict);
  });
});

describe("gpusOf", () => {
  it("is the chosen offer's GPUs, 0 without GPUs", () => {
    expect(gpusOf([{ gpu_count: 1 }, { gpu_count: 4 }, { gpu_count: 2 }])).toBe(1);
    expect(gpusOf([{ gpu_count: 0 }])).toBe(0);
    expect(gpusOf([])).toBe(0);
  });
});

describe("quotaMessage", () => {
  it("names the quota, what is held and what was asked", () => {
    expect(quotaMessage({ ok: false, cap: "gpus", limit: 6, held: 5, requested: 2 }, "job")).toBe(
      "this job lease asks for 2 GPUs, and the org's live leases hold 5: that would pass the org's GPU quota of 6",
    );
    expect(quotaMessage({ ok: false, cap: "per_kind.deployment", limit: 1, held: 1, requested: 1 }, "deployment")).toBe(
      "this deployment lease asks for 1 GPU, and the org's live deployment leases hold 1: that would pass the org's GPU quota for deployment leases of 1",
    );
    expect(quotaMessage({ ok: false, cap: "gpus", limit: 6, held: 6, requested: 4 }, "deployment")).toBe(
      "this deployment lease asks for 4 GPUs, and the org's live leases hold 6: that would pass the org's GPU quota of 6 (displacing every scratch lease would not free enough)",
    );
  });
});

describe("a fallback host with more GPUs (quota.ts heldGpus, gpusToHold; provision.ts rentPlan, quotaRefused)", () => {
  it("a fallback's growth displaces nothing: a deployment that would displace at create is refused", () => {
    expect(quotaVerdict(Q(6), ALL, { kind: "deployment", gpus: 1 })).toEqual(admitted(NEW_SCRATCH));
    expect(quotaVerdict(Q(6), ALL, { kind: "deployment", gpus: 1 }, { displace: false })).toEqual(refused("gpus", 6, 6, 1));
    expect(quotaVerdict(Q(7), ALL, { kind: "deployment", gpus: 1 }, { displace: false })).toEqual(admitted());
  });

  it("what a lease holds is what it was last admitted for, else its chosen offer's; only more asks again", () => {
    const offers = [{ gpu_count: 1 }, { gpu_count: 4 }];
    expect(heldGpus({ offers })).toBe(1);
    expect(heldGpus({ offers, held_gpus: 4 })).toBe(4);
    expect(gpusToHold({ offers }, 1)).toBeNull();
    expect(gpusToHold({ offers }, 4)).toBe(4);
    expect(gpusToHold({ offers, held_gpus: 4 }, 2)).toBeNull();
  });

  it("rentPlan names the GPUs a fallback must hold first; quotaRefused releases quota_exceeded with the refusal", () => {
    const big = { ...offer, id: "sim:o8", provider_offer_id: "o8", host_id: "h8", gpu_count: 8 };
    const l = lease("provisioning", { machine_id: null, offers: [offer, big], offer_index: 1, attempt: 1 });
    expect(rentPlan(l, T0)).toMatchObject({ offer: { id: "sim:o8" }, gpus: 8 });
    expect(rentPlan({ ...l, offer_index: 0 }, T0)).toMatchObject({ gpus: null });
    expect(rentPlan({ ...l, held_gpus: 8 }, T0)).toMatchObject({ gpus: null });
    const step = quotaRefused(l, big, { cap: "gpus", limit: 4, held: 1, requested: 8 }, T0);
    expect(step.next).toMatchObject({ state: "releasing", release_reason: "quota_exceeded" });
    expect(step.effect.detail).toEqual({ offer: "sim:o8", provider: "sim", quota: "gpus", limit: 4, held: 1, requested: 8 });
  });
});
