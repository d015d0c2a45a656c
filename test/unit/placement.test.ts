/**
 * Placement the market allows, and bandwidth as its own part of the estimate: what the adapters
 * read from the providers' own documents (vast-openapi.yaml's offer fields, runpod-v2-openapi.yaml's
 * `minCudaVersion`), the pure check of where a new machine landed, and the rate a lease reserves.
 */
import { describe, expect, it } from "vitest";
import { BANDWIDTH_GB_PER_HOUR, bandwidthHourlyUsd, reservedHourlyUsd } from "../../src/billing/bandwidth";
import { admissionReservation } from "../../src/billing/budget";
import { totalOf } from "../../src/billing/ceiling";
import { placementFor } from "../../src/catalog/quote";
import { placementOf } from "../../src/lease/placement";
import { defaultImageMinCuda } from "../../src/providers/registry";
import { RUNPOD_DEFAULT_IMAGE_MIN_CUDA, RunPodProvider } from "../../src/providers/runpod/adapter";
import { VastProvider } from "../../src/providers/vast/adapter";

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

const VAST_ASK = {
  id: 77,
  num_gpus: 1,
  gpu_name: "RTX 4090",
  gpu_ram: 24564,
  dph_total: 0.4,
  disk_space: 500,
  cpu_cores_effective: 16,
  cpu_ram: 65536,
  geolocation: "Washington, US",
  machine_id: 9,
  reliability2: 0.995,
  rentable: true,
  duration: 86_400.5,
  cuda_max_good: 12.4,
  inet_down_cost: 0.003,
  inet_up_cost: 0.01,
};

describe("the Vast adapter carries what the market allows of a host", () => {
  const listed = async (ask: Record<string, unknown>) => {
    const vast = new VastProvider({ apiKey: "k", fetch: async () => json({ offers: [ask] }) });
    return (await vast.listOffers()).offers[0]!;
  };

  it("reads `duration`, `cuda_max_good`, `inet_down_cost` and `inet_up_cost` onto the offer", async () => {
    expect(await listed(VAST_ASK)).toMatchObject({ host_duration_s: 86_400, cuda_max: 12.4, inet_down_usd_per_gb: 0.003, inet_up_usd_per_gb: 0.01 });
  });

  it("an ask that does not say how long its host stays is promised nothing; unstated CUDA and prices stay unstated", async () => {
    const { duration: _d, cuda_max_good: _c, inet_down_cost: _i, inet_up_cost: _u, ...silent } = VAST_ASK;
    const o = await listed(silent);
    expect(o.host_duration_s).toBe(0);
    expect(o.cuda_max).toBeUndefined();
    expect(o.inet_down_usd_per_gb).toBeUndefined();
    expect(bandwidthHourlyUsd(o)).toBe(0);
  });
});

describe("the RunPod adapter asks its market for the CUDA its default image needs", () => {
  it("reads the catalog with minCudaVersion and says so on every offer", async () => {
    const urls: string[] = [];
    const gpu = { id: "NVIDIA L40S", memory: 48, secure: true, community: false, price: { secure: 0.86 }, maxCount: { secure: 8 }, dataCenters: [{ id: "US-KS-2", availability: "HIGH" }] };
    const runpod = new RunPodProvider({ apiKey: "k", gpuCounts: [1], fetch: async (u) => (urls.push(String(u)), json({ gpus: [gpu] })) });
    const { offers } = await runpod.listOffers();
    expect(urls.every((u) => new URL(u).searchParams.get("minCudaVersion") === String(RUNPOD_DEFAULT_IMAGE_MIN_CUDA))).toBe(true);
    expect(offers.length).toBeGreaterThan(0);
    expect(offers.every((o) => o.cuda_max === RUNPOD_DEFAULT_IMAGE_MIN_CUDA)).toBe(true);
  });

  it("default images state their need; a lease with its own image asks only what its spec says", () => {
    expect(defaultImageMinCuda("runpod")).toBe(12.8);
    expect(defaultImageMinCuda("vast")).toBe(12.8);
    expect(defaultImageMinCuda("sim")).toBeNull();
    expect(placementFor({ ttl: 3_600_000, max_lifetime: 86_400_000 }, null)).toMatchObject({ hold_ms: 3_600_000 });
    expect(placementFor({ ttl: null, max_lifetime: 86_400_000 }, null).hold_ms).toBe(86_400_000);
    expect(placementFor({ ttl: null, max_lifetime: null }, null).hold_ms).toBeNull();
    expect(placementFor({ ttl: null, max_lifetime: null }, null).cuda_need("runpod")).toBe(12.8);
    expect(placementFor({ ttl: null, max_lifetime: null }, null).cuda_need("vast")).toBe(12.8);
    expect(placementFor({ ttl: null, max_lifetime: null }, null).cuda_need("sim")).toBeNull();
    expect(placementFor({ ttl: null, max_lifetime: null }, "ghcr.io/acme/x@sha256:0").cuda_need("runpod")).toBeNull();
  });
});

describe("placementOf: where a new machine landed", () => {
  it("outside the lease's regions is misplaced; no regions, or a machine not yet placed, is not judged", () => {
    expect(placementOf(["US-KS-2"], { region: "eu-ro-1" })).toEqual({ ok: false, region: "eu-ro-1", allowed: ["us-ks-2"] });
    expect(placementOf(["us-ks-2", "US-KS-2"], { region: "us-ks-2" })).toEqual({ ok: true });
    expect(placementOf(null, { region: "eu-ro-1" })).toEqual({ ok: true });
    expect(placementOf([], { region: "eu-ro-1" })).toEqual({ ok: true });
    expect(placementOf(["us-ks-2"], { region: "" })).toEqual({ ok: true });
  });
});

describe("bandwidth in the estimate and the ceiling", () => {
  const offer = { hourly_usd: 0.4, inet_down_usd_per_gb: 0.003, inet_up_usd_per_gb: 0.01 };

  it("counts the stated allowance at the offer's $/GB, and nothing where none is billed", () => {
    expect(BANDWIDTH_GB_PER_HOUR).toEqual({ down: 10, up: 2 });
    expect(bandwidthHourlyUsd(offer)).toBe(0.05);
    expect(reservedHourlyUsd(offer)).toBeCloseTo(0.45, 9);
    expect(bandwidthHourlyUsd({})).toBe(0);
    expect(reservedHourlyUsd({ hourly_usd: 0.4 })).toBe(0.4);
  });

  it("admission reserves the allowance with the price: a 4 h lease at $0.40/h plus $0.05/h of bandwidth holds $1.80", () => {
    const now = Date.UTC(2026, 5, 1);
    const r = admissionReservation(reservedHourlyUsd(offer), { ttl: 4 * 3_600_000, max_lifetime: 86_400_000 }, now);
    expect(totalOf(r)).toBe(1_800_000);
    expect(r.hourly_micro_usd).toBe(450_000);
  });
});
