import { describe, expect, it } from "vitest";
import type { Offer } from "../../src/catalog/offer";
import { OFFER_MAX_AGE_MS } from "../../src/catalog/offer";
import { constraintsOf, CUDA, HOST_DURATION, MAX_FALLBACKS, OFFER_AGE, selectOffer, staleCandidates } from "../../src/catalog/selector";
import { parseGpuToken, type Spec } from "../../src/catalog/spec";

let n = 0;
function offer(p: Partial<Offer>): Offer {
  n++;
  return {
    id: `sim:o${n}`,
    provider: "sim",
    provider_offer_id: `o${n}`,
    gpu: "l40s",
    gpu_count: 1,
    vram_gb: 48,
    vcpu: 16,
    memory_gb: 64,
    disk_gb: 200,
    region: "us-east",
    host_id: `h${n}`,
    hourly_usd: 1,
    availability: "medium",
    spot: false,
    ...p,
  };
}

function select(offers: Offer[], spec: Spec, providers = ["sim", "runpod"]) {
  const token = spec.gpu ? parseGpuToken(spec.gpu) : null;
  return selectOffer(offers, constraintsOf(spec, token, providers));
}

describe("selectOffer", () => {
  it("with `now`, never picks an offer older than OFFER_MAX_AGE_MS, and says when only stale ones fit", () => {
    const now = 1_000_000_000;
    const staleCheap = offer({ hourly_usd: 0.5, refreshed_at: now - OFFER_MAX_AGE_MS - 1 });
    const fresh = offer({ hourly_usd: 1.0, provider: "runpod", refreshed_at: now - OFFER_MAX_AGE_MS });
    const constraints = constraintsOf({ gpu: "l40s:1" }, parseGpuToken("l40s:1"), ["sim", "runpod"], { now });
    const r = selectOffer([staleCheap, fresh], constraints);
    expect(r.ok && r.chosen.id).toBe(fresh.id);
    expect(r.ok && r.fallbacks).toEqual([]);
    const none = selectOffer([staleCheap, offer({ gpu: "h100" })], constraints);
    expect(none).toEqual({ ok: false, constraint: OFFER_AGE, candidates_before: 1 });
    expect(staleCandidates([staleCheap, offer({ gpu: "h100" })], constraints)).toEqual([{ provider: "sim", refreshed_at: now - OFFER_MAX_AGE_MS - 1 }]);
    // An offer that never came from the cache has no age: it is stale.
    expect(selectOffer([offer({})], constraints).ok).toBe(false);
    // Without `now`, age is not judged (the benchmark's selector).
    expect(select([staleCheap], { gpu: "l40s:1" }).ok).toBe(true);
  });

  it("takes the cheapest offer that meets every constraint", () => {
    const cheap = offer({ hourly_usd: 0.8, region: "eu-west" });
    const fits = offer({ hourly_usd: 1.0 });
    const pricier = offer({ hourly_usd: 1.3 });
    const r = select([pricier, cheap, fits], { gpu: "l40s:1", regions: ["us-east"] });
    expect(r.ok && r.chosen.id).toBe(fits.id);
    expect(r.ok && r.fallbacks.map((o) => o.id)).toEqual([pricier.id]);
  });

  it("prefers better availability within 5% of the cheapest, and not beyond", () => {
    const cheapest = offer({ hourly_usd: 1.0, availability: "low" });
    const within = offer({ hourly_usd: 1.05, availability: "high" });
    const beyond = offer({ hourly_usd: 1.051, availability: "high" });
    expect(select([cheapest, within], { gpu: "l40s" })).toMatchObject({ ok: true, chosen: { id: within.id } });
    expect(select([cheapest, beyond], { gpu: "l40s" })).toMatchObject({ ok: true, chosen: { id: cheapest.id } });
  });

  it("ranks up to three fallbacks, one per host, none on the chosen host", () => {
    const a = offer({ hourly_usd: 1, host_id: "A" });
    const a2 = offer({ hourly_usd: 1.01, host_id: "A" });
    const b = offer({ hourly_usd: 1.2, host_id: "B" });
    const b2 = offer({ hourly_usd: 1.21, host_id: "B" });
    const c = offer({ hourly_usd: 1.5, host_id: "C" });
    const d = offer({ hourly_usd: 1.7, host_id: "D" });
    const e = offer({ hourly_usd: 1.9, host_id: "E" });
    const r = select([e, d, c, b2, b, a2, a], { gpu: "l40s" });
    if (!r.ok) throw new Error("expected a selection");
    expect(r.chosen.id).toBe(a.id);
    expect(r.fallbacks.map((o) => o.host_id)).toEqual(["B", "C", "D"]);
    expect(r.fallbacks).toHaveLength(MAX_FALLBACKS);
    expect(r.candidates).toBe(7);
  });

  it("never chooses an excluded provider or host", () => {
    const cheapRunpod = offer({ provider: "runpod", hourly_usd: 0.5 });
    const cheapHost = offer({ host_id: "bad", hourly_usd: 0.6 });
    const ok = offer({ hourly_usd: 2 });
    const r = select([cheapRunpod, cheapHost, ok], { gpu: "l40s", exclude_providers: ["RunPod"], exclude_hosts: ["bad"] });
    expect(r).toMatchObject({ ok: true, chosen: { id: ok.id }, fallbacks: [] });
  });

  it("keeps to a lane pin's provider", () => {
    const sim = offer({ provider: "sim", hourly_usd: 2 });
    const runpod = offer({ provider: "runpod", hourly_usd: 1 });
    expect(select([sim, runpod], { gpu: "l40s-sim:1" })).toMatchObject({ ok: true, chosen: { id: sim.id } });
  });

  it("matches the GPU count exactly and minimums as minimums", () => {
    const one = offer({ gpu_count: 1, hourly_usd: 1 });
    const two = offer({ gpu_count: 2, hourly_usd: 2 });
    const four = offer({ gpu_count: 4, hourly_usd: 4, memory_gb: 512 });
    expect(select([one, two, four], { gpu: "l40s:2" })).toMatchObject({ ok: true, chosen: { id: two.id } });
    expect(select([one, two, four], { min_gpus: 3 })).toMatchObject({ ok: true, chosen: { id: four.id } });
    expect(select([one, two, four], { gpu: "l40s:4", min_memory_gb: 256 })).toMatchObject({ ok: true, chosen: { id: four.id } });
  });

  it("keeps spot and on-demand apart; on-demand unless spot is asked for", () => {
    const spot = offer({ spot: true, hourly_usd: 0.4 });
    const onDemand = offer({ hourly_usd: 1 });
    expect(select([spot, onDemand], { gpu: "l40s" })).toMatchObject({ ok: true, chosen: { id: onDemand.id } });
    expect(select([spot, onDemand], { gpu: "l40s", spot: true })).toMatchObject({ ok: true, chosen: { id: spot.id } });
  });

  it("chooses CPU-only machines for a cpu spec, never a GPU one", () => {
    const gpu = offer({ hourly_usd: 0.1, vcpu: 64 });
    const cpu = offer({ gpu: "cpu", gpu_count: 0, vram_gb: 0, vcpu: 8, hourly_usd: 0.2 });
    const small = offer({ gpu: "cpu", gpu_count: 0, vram_gb: 0, vcpu: 2, hourly_usd: 0.05 });
    expect(select([gpu, cpu, small], { cpu: 4 })).toMatchObject({ ok: true, chosen: { id: cpu.id } });
  });

  it("selects by VRAM across classes", () => {
    const l4 = offer({ gpu: "l4", vram_gb: 24, hourly_usd: 0.5 });
    const h100 = offer({ gpu: "h100", vram_gb: 80, hourly_usd: 3 });
    expect(select([l4, h100], { min_vram_gb: 48 })).toMatchObject({ ok: true, chosen: { id: h100.id } });
  });

  it.each([
    [{ gpu: "h100:1" }, "gpu"],
    [{ gpu: "l40s:8" }, "gpu"],
    [{ gpu: "l40s", regions: ["mars"] }, "regions"],
    [{ gpu: "l40s", providers: ["vast"] }, "providers"],
    [{ gpu: "l40s", exclude_providers: ["sim"] }, "exclude_providers"],
    [{ gpu: "l40s", spot: true }, "spot"],
    [{ gpu: "l40s", min_cpu: 64 }, "min_cpu"],
    [{ gpu: "l40s", min_disk_gb: 10_000 }, "min_disk_gb"],
    [{ gpu: "l40s", exclude_hosts: ["only-host"] }, "exclude_hosts"],
    [{ gpu: "l40s", max_hourly_usd: 0.5 }, "max_hourly_usd"],
    [{ gpu: "l40s-runpod" }, "gpu"],
  ] as Array<[Spec, string]>)("names %j's last constraint: %s", (spec, constraint) => {
    const offers = [offer({ host_id: "only-host", hourly_usd: 1 })];
    const r = select(offers, spec, ["sim"]);
    expect(r).toMatchObject({ ok: false, constraint });
  });

  it("never chooses a provider the installation has not configured", () => {
    const runpod = offer({ provider: "runpod", hourly_usd: 0.5 });
    expect(select([runpod], { gpu: "l40s" }, ["sim"])).toMatchObject({ ok: false, constraint: "providers_configured" });
  });

  it("says nothing fits an empty catalog", () => {
    expect(select([], { gpu: "l40s" })).toMatchObject({ ok: false, candidates_before: 0 });
  });
});

describe("placement the market allows", () => {
  const now = 2_000_000_000_000;
  const hour = 3_600_000;
  const pick = (offers: Offer[], spec: Spec, placement: { hold_ms: number | null; cuda_need: (p: string) => number | null }) =>
    selectOffer(offers, constraintsOf(spec, spec.gpu ? parseGpuToken(spec.gpu) : null, ["sim", "vast", "runpod"], { now, placement }));
  const noNeed = () => null;

  it("never rents a host whose contract ends before the lease's hold, counted from when the offer was read", () => {
    const short = offer({ provider: "vast", hourly_usd: 0.5, host_duration_s: 2 * 3600, refreshed_at: now - 5 * 60_000 });
    const long = offer({ provider: "vast", hourly_usd: 0.9, host_duration_s: 30 * 24 * 3600, refreshed_at: now });
    const r = pick([short, long], { gpu: "l40s:1" }, { hold_ms: 2 * hour, cuda_need: noNeed });
    expect(r.ok && r.chosen.id).toBe(long.id);
    // Read 5 minutes ago with 2 h left: 1 h 55 m left now, enough for a 1 h lease.
    expect(pick([short], { gpu: "l40s:1" }, { hold_ms: hour, cuda_need: noNeed }).ok).toBe(true);
    expect(pick([short], { gpu: "l40s:1" }, { hold_ms: 2 * hour, cuda_need: noNeed })).toEqual({ ok: false, constraint: HOST_DURATION, candidates_before: 1 });
    // A Vast ask that did not say is promised 0 s; a provider that ends no rental states none.
    expect(pick([offer({ provider: "vast", host_duration_s: 0, refreshed_at: now })], { gpu: "l40s:1" }, { hold_ms: hour, cuda_need: noNeed }).ok).toBe(false);
    expect(pick([offer({ provider: "sim", refreshed_at: now })], { gpu: "l40s:1" }, { hold_ms: 100 * hour, cuda_need: noNeed }).ok).toBe(true);
    // No ttl and no max_lifetime: the filter does not apply.
    expect(pick([offer({ provider: "vast", host_duration_s: 0, refreshed_at: now })], { gpu: "l40s:1" }, { hold_ms: null, cuda_need: noNeed }).ok).toBe(true);
  });

  it("never places an image on a host whose CUDA is older than it needs; one that does not say never passes a need", () => {
    const old = offer({ provider: "vast", hourly_usd: 0.5, cuda_max: 11.8, refreshed_at: now });
    const silent = offer({ provider: "vast", hourly_usd: 0.6, refreshed_at: now });
    const fresh = offer({ provider: "vast", hourly_usd: 0.9, cuda_max: 12.8, refreshed_at: now });
    const r = pick([old, silent, fresh], { gpu: "l40s:1", min_cuda: 12.4 }, { hold_ms: null, cuda_need: noNeed });
    expect(r.ok && r.chosen.id).toBe(fresh.id);
    expect(r.ok && r.fallbacks).toEqual([]);
    expect(pick([old, silent], { gpu: "l40s:1", min_cuda: 12.4 }, { hold_ms: null, cuda_need: noNeed })).toEqual({ ok: false, constraint: CUDA, candidates_before: 2 });
    // A user image without a stated need has no constraint, even on hosts that do not say.
    expect(pick([silent], { gpu: "l40s:1" }, { hold_ms: null, cuda_need: noNeed }).ok).toBe(true);
    // A provider's default image states its own need.
    const need = (p: string) => (p === "runpod" ? 12.8 : null);
    const runpodOld = offer({ provider: "runpod", hourly_usd: 0.4, cuda_max: 12.4, refreshed_at: now });
    const r2 = pick([runpodOld, silent], { gpu: "l40s:1" }, { hold_ms: null, cuda_need: need });
    expect(r2.ok && r2.chosen.id).toBe(silent.id);
  });
});
