import type { GpuClass } from "./gpu-classes";

export const AVAILABILITY = ["high", "medium", "low"] as const;
export type Availability = (typeof AVAILABILITY)[number];

/** One rentable shape at one provider, normalized (docs/design.md "Words"). */
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
  /**
   * How long the host stays rentable, in seconds from when the offer was read (Vast's `duration`:
   * its contract with the market ends then, and the instance with it). Absent: the provider ends
   * no rental on its own. An offer of such a provider that does not say is given 0, promised
   * nothing, so it never passes a lease's need for a host (never guessed).
   */
  host_duration_s?: number;
  /**
   * The newest CUDA version the host is known to run (Vast's `cuda_max_good`; for RunPod, the
   * `minCudaVersion` its market was asked with). Absent: not stated, and then never placed under
   * an image that needs one.
   */
  cuda_max?: number;
  /** What moving data bills, $ per GB (Vast's `inet_down_cost`, `inet_up_cost`); absent: nothing. */
  inet_down_usd_per_gb?: number;
  inet_up_usd_per_gb?: number;
  /**
   * What a machine of this offer bills per hour while stopped (its kept disk), as its provider's
   * adapter states it; absent: a stop ends its billing, it cannot be stopped, or the price is not
   * stated (docs/design.md "The worst case").
   */
  stopped_hourly_usd?: number;
  /**
   * What the provider states of the host, each absent where it says nothing, and then never passed
   * by a filter on it (never guessed): its reliability score, 0 to 1 (Vast's `reliability2`, else
   * `reliability`), and its measured internet speeds in Mbps (Vast's `inet_down`, `inet_up`).
   */
  reliability?: number;
  inet_down_mbps?: number;
  inet_up_mbps?: number;
  /**
   * How long a machine of this offer takes from create to running, in whole seconds, as its
   * provider states it. No real provider does; the sim states its own boot model (provision and
   * boot delays). Absent: not stated, and then never passed by `max_startup_s`.
   */
  startup_s?: number;
  /**
   * A spot offer's on-demand price beside it, $/h, where its provider states one for the same
   * machine (Vast: the same ask searched on-demand; the sim: its market's on-demand price for the
   * shape). Absent: on-demand, or not stated.
   */
  on_demand_hourly_usd?: number;
  /**
   * When the catalog refresh last read it from its provider: set on offers read from the offer
   * cache (offers-repo.ts `rowToOffer`), never rendered. Absent on what an adapter returns.
   */
  refreshed_at?: number;
}

/**
 * The fields an offer, its D1 row (src/db/schema.ts `OffersTable`) and its answer hold under one
 * name and in one form. The row's type is built from these lists, so a field is added here and in
 * `Offer` alone (and in a migration).
 */
export const OFFER_SHARED_FIELDS = [
  "id", "provider", "provider_offer_id", "gpu_count", "vram_gb", "vcpu", "memory_gb", "disk_gb", "region", "host_id", "hourly_usd", "availability",
] as const;
export type OfferSharedField = (typeof OFFER_SHARED_FIELDS)[number];

/** The optional facts of an offer: null in a row and an answer where the provider states none. */
export const OFFER_OPTIONAL_FIELDS = [
  "host_duration_s", "cuda_max", "inet_down_usd_per_gb", "inet_up_usd_per_gb", "reliability", "inet_down_mbps", "inet_up_mbps", "stopped_hourly_usd", "startup_s", "on_demand_hourly_usd",
] as const satisfies ReadonlyArray<keyof Offer>;
export type OfferOptionalField = (typeof OFFER_OPTIONAL_FIELDS)[number];

// Every optional fact of `Offer` is in the list (refreshed_at is the row's own column): one left out fails to compile here.
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];
const _everyOptionalFieldListed: Exclude<OptionalKeys<Offer>, OfferOptionalField | "refreshed_at"> extends never ? true : never = true;
void _everyOptionalFieldListed;

/**
 * An offer whose provider's market has not been read for this long is stale: listed as such and
 * never quoted (docs/design.md "Markets"). The refresh runs every minute, so this is ten missed refreshes.
 */
export const OFFER_MAX_AGE_MS = 10 * 60_000;

/** Whether a market last read at `refreshedAt` (null: never) is stale at `now`. */
export const isStale = (refreshedAt: number | null | undefined, now: number): boolean =>
  refreshedAt === null || refreshedAt === undefined || now - refreshedAt > OFFER_MAX_AGE_MS;

export const AVAILABILITY_RANK: Record<Availability, number> = { high: 3, medium: 2, low: 1 };
