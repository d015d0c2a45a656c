/**
 * The one contract every provider adapter implements. The core branches on `capabilities`, never
 * on a provider's name (DESIGN.md "Shape").
 *
 * Rules every adapter keeps:
 * - A create is never retried inside the adapter. When its outcome is unknown (timeout, 5xx,
 *   dropped connection) it throws `ambiguous`, and the lease reconciles by label (guarantee 2).
 * - Reads (get, list) may be retried with bounded, jittered backoff.
 * - Destroying a machine that is already gone is success.
 * - State is read back from the provider, never assumed from a call's success.
 */
import type { Offer } from "../catalog/offer";

export interface ProviderCapabilities {
  stop: boolean;
  start: boolean;
  list_by_label: boolean;
  billing_records: boolean;
  webhooks: boolean;
  /** Whether a stopped machine stops billing entirely (false: disk keeps billing). */
  stop_ends_billing: boolean;
  spot: boolean;
}

/** A machine's state, normalized from the provider's own words. */
export const MACHINE_STATUSES = ["provisioning", "starting", "running", "stopped", "terminated", "error"] as const;
export type MachineStatus = (typeof MACHINE_STATUSES)[number];

/** One provider machine as the provider reports it now. */
export interface Machine {
  /** The provider's id for the machine. */
  id: string;
  /** The deterministic label lessor gave it at create (see src/lease/label.ts). */
  label: string;
  status: MachineStatus;
  offer_id: string;
  host_id: string;
  region: string;
  /** What the machine bills per hour while it runs. */
  hourly_usd: number;
  /** What it bills per hour while stopped (disk); 0 where stopping ends billing. */
  stopped_hourly_usd: number;
  created_at: number;
}

export interface CreateMachineInput {
  /** Deterministic: the lease and attempt it belongs to. Listing by it finds the machine. */
  label: string;
  /** The provider's own offer id (Offer.provider_offer_id). */
  offer_id: string;
  image?: string;
  cmd?: string;
}

export interface Provider {
  readonly name: string;
  readonly capabilities: ProviderCapabilities;
  /** Every offer the provider has now, normalized; unclassifiable GPUs are left out and counted. */
  listOffers(): Promise<OfferListing>;
  /** Never retried; throws `ambiguous` when the outcome is unknown, `no_capacity` when refused. */
  createMachine(input: CreateMachineInput): Promise<Machine>;
  /** null when the provider no longer knows the machine (or reports it terminated). */
  getMachine(id: string): Promise<Machine | null>;
  /** Every machine whose label starts with `prefix`, terminated ones left out. */
  listMachines(prefix: string): Promise<Machine[]>;
  stopMachine(id: string): Promise<void>;
  startMachine(id: string): Promise<void>;
  /** Success when the machine is already gone. */
  destroyMachine(id: string): Promise<void>;
}

export interface OfferListing {
  offers: Offer[];
  /** Offers left out because their GPU matched no class (never guessed). */
  unclassified: number;
}

/** Normalized provider failure kinds (DESIGN.md "Shape"). */
export type ProviderErrorKind =
  | "auth"
  | "rate_limited"
  | "unavailable"
  | "no_capacity"
  | "insufficient_funds"
  | "not_found"
  | "ambiguous";

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderErrorKind,
    message: string,
    /** For `rate_limited`: how long to wait before the next call. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
