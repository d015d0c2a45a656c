/**
 * The simulated cloud's market: a deterministic, seeded set of offers that looks like a real
 * marketplace. Hosts repeat (one host sells 1, 2, 4 and 8 GPU shapes), three tiers carry
 * provider-like margins, and GPU names come in providers' own spellings so that normalization
 * is exercised on the way in.
 */

import { classifyGpu, vramOf } from "../../catalog/gpu-classes";
import type { Offer } from "../../catalog/offer";
import { prng } from "../../random";
import { diskPrice } from "./machines";

/** A sim offer as the sim's API answers it (provider-shaped, not lessor-shaped). */
export interface SimOffer {
  offer_id: string;
  gpu_name: string;
  gpu_memory_gb: number;
  num_gpus: number;
  vcpus: number;
  ram_gb: number;
  disk_gb: number;
  region: string;
  host_id: string;
  price_per_hour: number;
  stock: "high" | "medium" | "low";
  interruptible: boolean;
  /**
   * Whole seconds from create to running, from the sim's boot model (`simStartupS`); stated by the
   * market's answer, not by the generated offer (the delays are faults, set at run time).
   */
  startup_s?: number;
  /** A spot (interruptible) offer's on-demand list price for the same shape, $/h; absent on on-demand offers. */
  on_demand_price_per_hour?: number;
}

/**
 * What the sim states as its offers' startup time: a machine provisions for `provision_delay_ms`,
 * then boots for `boot_delay_ms` (machines.ts `advance`), rounded up to whole seconds.
 */
export function simStartupS(faults: { provision_delay_ms: number; boot_delay_ms: number }): number {
  return Math.ceil((faults.provision_delay_ms + faults.boot_delay_ms) / 1000);
}

export const SIM_REGIONS = ["us-east", "us-west", "us-central", "eu-west", "eu-central", "eu-north", "ap-southeast"] as const;

/** Spellings as providers write them, with a typical on-demand price per GPU-hour. */
const SIM_GPUS: ReadonlyArray<readonly [name: string, memGb: number, usd: number]> = [
  ["Tesla T4", 16, 0.35],
  ["NVIDIA L4", 24, 0.6],
  ["NVIDIA A10", 24, 0.75],
  ["NVIDIA A10G", 24, 0.9],
  ["RTX A4000", 16, 0.3],
  ["NVIDIA RTX A5000", 24, 0.4],
  ["GeForce RTX 3090", 24, 0.35],
  ["GeForce RTX 4090", 24, 0.55],
  ["GeForce RTX 5090", 32, 0.9],
  ["NVIDIA L40", 48, 1.0],
  ["NVIDIA L40S", 48, 1.1],
  ["NVIDIA A40", 48, 0.6],
  ["NVIDIA RTX A6000", 48, 0.7],
  ["RTX 6000 Ada", 48, 0.95],
  ["RTX PRO 6000 Blackwell", 96, 1.9],
  ["A100 40GB PCIe", 40, 1.3],
  ["A100 80GB PCIe", 80, 1.7],
  ["A100-SXM4-80GB", 80, 1.9],
  ["H100 SXM5", 80, 2.9],
  ["H100 PCIe", 80, 2.4],
  ["NVIDIA H100 NVL", 94, 2.8],
  ["NVIDIA GH200", 96, 3.2],
  ["NVIDIA H200", 141, 3.8],
  ["NVIDIA B200", 180, 5.5],
  ["AMD Instinct MI300X", 192, 3.5],
  // A spelling no class covers: left out by the adapter, and counted.
  ["Quadro RTX 8000", 48, 0.5],
];

/** Price multipliers of the sim's three tiers: community hosts, secure cloud, spot capacity. */
const TIERS = [
  { name: "community", margin: [0.78, 1.0], stock: ["medium", "low", "high"], spot: false },
  { name: "secure", margin: [1.05, 1.35], stock: ["high", "high", "medium"], spot: false },
  { name: "spot", margin: [0.45, 0.7], stock: ["low", "medium", "low"], spot: true },
] as const;

const SHAPES = [1, 2, 4, 8] as const;

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * Exactly `count` offers. The i-th GPU host sells GPU model i mod N, so that every model (and so every
 * class) appears once `count` is at least the number of models times four shapes; CPU-only hosts
 * are sprinkled in at every seventh host.
 */
export function generateSimOffers(count: number, seed = 1): SimOffer[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const offers: SimOffer[] = [];
  let gpuHosts = 0;
  for (let host = 0; offers.length < count; host++) {
    const region = SIM_REGIONS[host % SIM_REGIONS.length]!;
    const tier = TIERS[Math.floor(host / SIM_REGIONS.length) % TIERS.length]!;
    const hostId = `sim-host-${String(host).padStart(5, "0")}`;
    const margin = tier.margin[0] + rand() * (tier.margin[1] - tier.margin[0]);
    if (host % 7 === 6) {
      const vcpus = pick([4, 8, 16, 32, 64]);
      offers.push({
        offer_id: `${hostId}-cpu${vcpus}`,
        gpu_name: "",
        gpu_memory_gb: 0,
        num_gpus: 0,
        vcpus,
        ram_gb: vcpus * 4,
        disk_gb: pick([50, 100, 200]),
        region,
        host_id: hostId,
        price_per_hour: round4(vcpus * 0.012 * margin),
        stock: pick(tier.stock),
        interruptible: tier.spot,
        ...(tier.spot ? { on_demand_price_per_hour: round4(vcpus * 0.012) } : {}),
      });
      continue;
    }
    const model = gpuHosts++;
    const [gpuName, memGb, usd] = SIM_GPUS[model % SIM_GPUS.length]!;
    const hostGpus = model < SIM_GPUS.length * 2 ? 8 : pick([1, 2, 4, 8, 8]);
    const vcpuPerGpu = pick([8, 12, 16, 24]);
    const ramPerGpu = pick([32, 48, 64, 96, 128]);
    const diskPerGpu = pick([100, 200, 500]);
    for (const n of SHAPES) {
      if (n > hostGpus || offers.length >= count) break;
      offers.push({
        offer_id: `${hostId}-g${n}`,
        gpu_name: gpuName,
        gpu_memory_gb: memGb,
        num_gpus: n,
        vcpus: vcpuPerGpu * n,
        ram_gb: ramPerGpu * n,
        disk_gb: diskPerGpu * n,
        region,
        host_id: hostId,
        // A little per-host jitter so that no two hosts tie exactly.
        price_per_hour: round4(usd * margin * n * (0.97 + rand() * 0.06)),
        stock: pick(tier.stock),
        interruptible: tier.spot,
        // The list price a spot price is a discount on: the model's price, no tier margin.
        ...(tier.spot ? { on_demand_price_per_hour: round4(usd * n) } : {}),
      });
    }
  }
  return offers;
}

/**
 * A sim offer as lessor's Offer, or null when its GPU matches no class (left out, never guessed).
 * Built as one literal in one field order, so every offer has the same shape (selection over
 * 100,000 of them is several times slower on objects of mixed shapes).
 */
export function normalizeSimOffer(o: SimOffer): Offer | null {
  const gpu = o.num_gpus === 0 ? "cpu" : classifyGpu(o.gpu_name, o.gpu_memory_gb);
  if (!gpu) return null;
  return {
    id: `sim:${o.offer_id}`,
    provider: "sim",
    provider_offer_id: o.offer_id,
    gpu,
    gpu_count: o.num_gpus,
    vram_gb: gpu === "cpu" ? 0 : vramOf(gpu),
    vcpu: o.vcpus,
    memory_gb: o.ram_gb,
    disk_gb: o.disk_gb,
    region: o.region,
    host_id: o.host_id,
    hourly_usd: o.price_per_hour,
    // A stopped sim machine keeps billing its disk at diskPrice (machines.ts).
    stopped_hourly_usd: diskPrice(o.price_per_hour),
    availability: o.stock,
    spot: o.interruptible,
    ...(o.startup_s === undefined ? {} : { startup_s: o.startup_s }),
    // Always the key (undefined on on-demand offers), so every offer keeps one shape.
    on_demand_hourly_usd: o.on_demand_price_per_hour,
  };
}
