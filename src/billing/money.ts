/**
 * Money in lessor is integer micro-dollars (µUSD, a millionth of a dollar) wherever it is stored
 * or summed, so that receipts add up to the cent with no float drift. Providers state
 * amounts in dollars; they are converted once, on the way in, and rendered as dollars on the way
 * out. Rates are micro-dollars per hour.
 */

export const MICROS_PER_USD = 1_000_000;
/** One cent in micro-dollars. */
export const CENT = 10_000;
export const HOUR_MS = 3_600_000;

export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

/** Dollars as the API shows them: at most six decimals, exact for any stored amount. */
export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** What `rate` micro-dollars an hour comes to over `ms` milliseconds, to the micro-dollar. */
export function microsFor(ms: number, rate: number): number {
  return ms > 0 ? Math.round((ms * rate) / HOUR_MS) : 0;
}

/**
 * Whether an actual amount and an estimate differ beyond tolerance: more than max($0.01, 1% of the
 * actual) apart (docs/design.md guarantee 7: such a lease is `disputed`, with both figures).
 */
export function beyondTolerance(actualMicros: number, estimateMicros: number): boolean {
  const tolerance = Math.max(CENT, Math.round(Math.abs(actualMicros) / 100));
  return Math.abs(actualMicros - estimateMicros) > tolerance;
}
