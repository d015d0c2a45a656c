/**
 * Offer selection over 100,000 offers, in this process; and the helpers the other benches share.
 * (The backstop at 100,000 leases is the scale bench's, test/bench/scale.ts.)
 */
import type { Offer } from "../../src/catalog/offer";
import { constraintsOf, selectOffer } from "../../src/catalog/selector";
import { parseGpuToken, type Spec } from "../../src/catalog/spec";
import { generateSimOffers, normalizeSimOffer } from "../../src/providers/sim/offers";

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** The sim's market, normalized exactly as its adapter does. */
export function simOffers(count: number): Offer[] {
  return generateSimOffers(count, 1)
    .map(normalizeSimOffer)
    .filter((o): o is Offer => o !== null);
}

export interface SelectionResult {
  offers: number;
  /** Median milliseconds per quote, by spec. */
  specs: Array<{ spec: string; pool: number; median_ms: number; p99_ms: number }>;
}

/**
 * Quoting against 100,000 offers: the selector over the pool the quote path gives it (the spec's
 * class, as the D1 narrowing does; every GPU offer for a minimums-only spec).
 */
export function benchSelection(count = 100_000, runs = 60): SelectionResult {
  const offers = simOffers(count);
  const specs: Spec[] = [
    { gpu: "h100:8" },
    { gpu: "l40s:1", regions: ["us-east", "eu-central"], max_hourly_usd: 2 },
    { min_vram_gb: 80, min_gpus: 2 },
    { min_vram_gb: 24, spot: true, exclude_hosts: ["sim-host-00001"] },
  ];
  const result: SelectionResult = { offers: offers.length, specs: [] };
  for (const spec of specs) {
    const token = spec.gpu ? parseGpuToken(spec.gpu) : null;
    const pool = token ? offers.filter((o) => o.gpu === token.gpu) : offers.filter((o) => o.gpu !== "cpu");
    const constraints = constraintsOf(spec, token, ["sim"]);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const r = selectOffer(pool, constraints);
      times.push(performance.now() - t);
      if (!r.ok) throw new Error(`selection bench: ${JSON.stringify(spec)} found nothing (${r.constraint})`);
    }
    result.specs.push({ spec: JSON.stringify(spec), pool: pool.length, median_ms: median(times), p99_ms: percentile(times, 99) });
  }
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(benchSelection(), null, 2));
}
