/**
 * Moving data, where a provider bills it (Vast's `inet_down_cost` and `inet_up_cost`, $ per GB,
 * which its charges bill as `bwd` and `bwu`). lessor cannot know what a lease will move, so its
 * estimate and its ceiling count a stated allowance: BANDWIDTH_GB_PER_HOUR each way, at the
 * offer's prices, for every hour it may run. Pure: no I/O, no clock (STYLE.md rule 1).
 *
 * The allowance is part of the rate a lease reserves against its org's caps (budget.ts
 * `admissionReservation`, src/lease/rent.ts), so the ceiling a quote shows, what admission
 * reserves and what a re-reservation asks for are the same figure. Where a provider does not bill
 * bandwidth the offer states no price, and the allowance costs nothing.
 */
import type { Offer } from "../catalog/offer";

/**
 * GB assumed moved per hour a lease runs: an image and a model pulled in, results and answers
 * sent out. An assumption, always shown beside the figure it makes.
 */
export const BANDWIDTH_GB_PER_HOUR = Object.freeze({ down: 10, up: 2 });

/** What the allowance costs an hour at `offer`'s prices: 0 where it states none. */
export function bandwidthHourlyUsd(offer: Pick<Offer, "inet_down_usd_per_gb" | "inet_up_usd_per_gb"> | null | undefined): number {
  if (!offer) return 0;
  const down = offer.inet_down_usd_per_gb ?? 0;
  const up = offer.inet_up_usd_per_gb ?? 0;
  return Math.round((down * BANDWIDTH_GB_PER_HOUR.down + up * BANDWIDTH_GB_PER_HOUR.up) * 1e6) / 1e6;
}

/** The hourly rate a lease renting `offer` is estimated and reserved at: its price and its bandwidth allowance. */
export function reservedHourlyUsd(offer: Pick<Offer, "hourly_usd" | "inet_down_usd_per_gb" | "inet_up_usd_per_gb">): number {
  return offer.hourly_usd + bandwidthHourlyUsd(offer);
}
