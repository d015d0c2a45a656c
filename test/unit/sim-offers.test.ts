import { describe, expect, it } from "vitest";
import { classifyGpu, GPU_CLASS_NAMES } from "../../src/catalog/gpu-classes";
import { generateSimOffers, SIM_REGIONS } from "../../src/providers/sim/offers";

describe("the sim's market", () => {
  const offers = generateSimOffers(400);

  it("is exactly as large as asked, and the same on every run", () => {
    expect(offers).toHaveLength(400);
    expect(generateSimOffers(400)).toEqual(offers);
    expect(generateSimOffers(10_000)).toHaveLength(10_000);
    expect(new Set(offers.map((o) => o.offer_id)).size).toBe(400);
  });

  it("covers every GPU class and at least five regions at the default size", () => {
    const classes = new Set(offers.map((o) => classifyGpu(o.gpu_name, o.gpu_memory_gb)).filter(Boolean));
    for (const cls of GPU_CLASS_NAMES) expect(classes, cls).toContain(cls);
    expect(new Set(offers.map((o) => o.region)).size).toBeGreaterThanOrEqual(5);
    expect(SIM_REGIONS.length).toBeGreaterThanOrEqual(5);
  });

  it("has hosts that repeat and prices that differ by tier", () => {
    const perHost = new Map<string, number>();
    for (const o of offers) perHost.set(o.host_id, (perHost.get(o.host_id) ?? 0) + 1);
    expect([...perHost.values()].some((n) => n >= 4)).toBe(true);
    const h100 = offers.filter((o) => o.gpu_name === "H100 SXM5" && o.num_gpus === 1).map((o) => o.price_per_hour);
    expect(Math.max(...h100) / Math.min(...h100)).toBeGreaterThan(1.2);
    expect(offers.some((o) => o.interruptible)).toBe(true);
    expect(offers.some((o) => o.num_gpus === 0)).toBe(true);
  });

  it("includes a GPU no class covers, so that normalization's refusal is exercised", () => {
    expect(offers.some((o) => o.num_gpus > 0 && classifyGpu(o.gpu_name, o.gpu_memory_gb) === null)).toBe(true);
  });
});
