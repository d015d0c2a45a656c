/**
 * The one contract every provider adapter implements. The core branches on `capabilities`, never
 * on a provider's name (DESIGN.md "Shape"). This surface is the catalog; the machine
 * lifecycle (create, get, list by label, stop, start, destroy, billing) joins it with leases.
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

export interface Provider {
  readonly name: string;
  readonly capabilities: ProviderCapabilities;
  /** Every offer the provider has now, normalized; unclassifiable GPUs are left out and counted. */
  listOffers(): Promise<OfferListing>;
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
