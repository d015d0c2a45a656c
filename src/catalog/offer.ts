import type { GpuClass } from "./gpu-classes";

export const AVAILABILITY = ["high", "medium", "low"] as const;
export type Availability = (typeof AVAILABILITY)[number];

/** One rentable shape at one provider, normalized (DESIGN.md "offer"). */
export interface Offer {
  /** `<provider>:<provider offer id>`. */
  id: string;
  provider: string;
  provider_offer_id: string;
  /** A GPU class, or "cpu" for a machine without GPUs. */
  gpu: GpuClass | "cpu";
  gpu_count: number;
  /** Memory of one GPU; 0 for CPU-only machines. */
  vram_gb: number;
  vcpu: number;
  memory_gb: number;
  disk_gb: number;
  region: string;
  host_id: string;
  hourly_usd: number;
  availability: Availability;
  spot: boolean;
}

export const AVAILABILITY_RANK: Record<Availability, number> = { high: 3, medium: 2, low: 1 };
