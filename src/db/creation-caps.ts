/**
 * How many rows an org, or one provider account, may add to D1's shared tables in a day (issue 28,
 * hardening item 4; docs/operations.md "Limits and retention"; docs/security.md). Each cap is counted in the
 * same statement as the insert it guards, as src/auth/limits.ts counts an org's keys: D1 runs one
 * statement at a time, so concurrent creates cannot pass it together.
 *
 * A cap counts the rows made in the last CREATION_WINDOW_MS, through an index that begins with
 * the owner (an org's leases by their time-ordered ids, src/ids.ts `idFloor`; an account's ingress
 * events by the table's key), and the count stops at the cap (`LIMIT`), so one insert reads at
 * most as many index entries as its cap, and an org far below it reads only what it made. The
 * quote cap is the exception since issue 34: quotes are kept by their org's own object, which
 * counts them in memory in the same step as it stores one (src/catalog/quote-store.ts). Past a
 * cap the answer is 429 `rate_limited` naming it, with Retry-After: the time until the oldest row
 * counted leaves the window. The cron's retention (src/db/retention.ts) deletes each run what
 * these caps let every owner make in a cron period, and more, so it keeps up.
 */
import { intSetting, type Env } from "../env";
import { ApiError } from "../errors";

/** The window every creation cap counts over. */
export const CREATION_WINDOW_MS = 24 * 3_600_000;

/** Quotes one org may make in 24 h (`LESSOR_QUOTES_PER_DAY`). */
export const QUOTES_PER_DAY = 10_000;
/** Leases one org may create in 24 h (`LESSOR_LEASES_PER_DAY`), deployments' leases included. */
export const LEASES_PER_DAY = 5_000;
/** Webhook event ids one provider account's deliveries may record in 24 h (`LESSOR_INGRESS_EVENTS_PER_DAY`). */
export const INGRESS_EVENTS_PER_DAY = 10_000;

export interface CreationCaps {
  quotes: number;
  leases: number;
  ingress_events: number;
}

export type CappedRows = keyof CreationCaps;

/** The installation's caps: each env setting a positive whole number, else its default. */
export function creationCaps(env: Pick<Env, "LESSOR_QUOTES_PER_DAY" | "LESSOR_LEASES_PER_DAY" | "LESSOR_INGRESS_EVENTS_PER_DAY">): CreationCaps {
  return {
    quotes: intSetting(env.LESSOR_QUOTES_PER_DAY, QUOTES_PER_DAY),
    leases: intSetting(env.LESSOR_LEASES_PER_DAY, LEASES_PER_DAY),
    ingress_events: intSetting(env.LESSOR_INGRESS_EVENTS_PER_DAY, INGRESS_EVENTS_PER_DAY),
  };
}

const WHAT: Record<CappedRows, string> = {
  quotes: "quotes for this org",
  leases: "leases for this org",
  ingress_events: "webhook events for this provider account",
};

/**
 * Seconds until a slot frees: when the oldest row the cap counted (made at `oldestAt`; null: it
 * is gone already) leaves the window; at least 1.
 */
export function retryAfterS(oldestAt: number | null, now: number): number {
  if (oldestAt === null) return 1;
  return Math.max(1, Math.ceil((oldestAt + CREATION_WINDOW_MS - now) / 1000));
}

/** 429 `rate_limited` for a cap reached: `details.budget` names it, with its `max` and window. */
export function capReached(what: CappedRows, max: number, retryAfter: number): ApiError {
  return new ApiError(
    429,
    "rate_limited",
    `at most ${max} ${WHAT[what]} in ${CREATION_WINDOW_MS / 3_600_000} hours; the next may be made in ${retryAfter} s`,
    { budget: what, max, window_s: CREATION_WINDOW_MS / 1000, retry_after_s: retryAfter },
    { "Retry-After": String(retryAfter) },
  );
}
