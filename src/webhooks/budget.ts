/**
 * How many webhook deliveries an org's object may hand to the webhook queue (issue 28, item 5:
 * webhooks do not amplify): LESSOR_WEBHOOK_DELIVERIES_PER_MINUTE a minute for the org, all its
 * endpoints together, as a token bucket that holds a minute's worth and refills evenly, as the API's
 * rate limits do (docs/api.md "Rate limits"). Each hand-over spends one: a new delivery, a retry by
 * hand, one handed over again; the queue's own retries of a failing delivery are bounded by the
 * schedule and the endpoint's failure count instead (src/webhooks/schedule.ts). A delivery past it
 * is not dropped: it stays pending and waits, and the org's alarm comes back once a run's worth has
 * refilled. Each event goes to at most LESSOR_WEBHOOK_FANOUT endpoints (src/webhooks/deliveries.ts
 * `enqueue`). Pure: `now` is passed in.
 *
 * The bucket is kept in the org object's `meta` (`delivery_budget`), so an object that is evicted
 * or restarted does not start again with a full one.
 */
import { intSetting, type Env } from "../env";

export const DEFAULT_DELIVERIES_PER_MINUTE = 600;
export const DEFAULT_FANOUT = 5;

export const deliveriesPerMinute = (env: Pick<Env, "LESSOR_WEBHOOK_DELIVERIES_PER_MINUTE">) =>
  intSetting(env.LESSOR_WEBHOOK_DELIVERIES_PER_MINUTE, DEFAULT_DELIVERIES_PER_MINUTE);

export const fanout = (env: Pick<Env, "LESSOR_WEBHOOK_FANOUT">) => intSetting(env.LESSOR_WEBHOOK_FANOUT, DEFAULT_FANOUT);

/** Hand-overs the bucket holds (a fraction refills between whole ones) as of `at`. */
export interface Budget {
  tokens: number;
  at: number;
}

/** The bucket at `now`: a new one is full; a clock that stepped back refills nothing. */
export function refilled(budget: Budget | null, perMinute: number, now: number): Budget {
  if (!budget) return { tokens: perMinute, at: now };
  const tokens = Math.min(perMinute, Math.max(0, budget.tokens) + (Math.max(0, now - budget.at) * perMinute) / 60_000);
  return { tokens, at: now };
}

/**
 * When the object may hand deliveries over again with some due: now while a whole one is left;
 * else once `batch` (a run's worth, or the whole minute's when that is less) have come back, so that
 * a throttled org is served in runs, not one delivery at a time.
 */
export function budgetReadyAt(budget: Budget | null, perMinute: number, batch: number, now: number): number {
  const b = refilled(budget, perMinute, now);
  if (b.tokens >= 1) return now;
  const want = Math.min(batch, perMinute);
  return now + Math.ceil(((want - b.tokens) * 60_000) / perMinute);
}
