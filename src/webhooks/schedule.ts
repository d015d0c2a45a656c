/**
 * When a failed delivery is tried again: the Standard Webhooks 1.0 schedule (immediately, then 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after each failure), each wait spread by up to ±10 % so that
 * many deliveries failing together do not all come back at once. Pure: `random` is passed in.
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait before each attempt: the first is immediate, the eighth is the last. */
export const RETRY_SCHEDULE_MS = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
export const JITTER = 0.1;
/** An endpoint failing this long without one delivery is disabled (with a `webhook_disabled` event). */
export const FAILING_DISABLE_MS = 5 * 24 * HOUR;
/**
 * An endpoint whose attempts failed this many times in a row is disabled as well (issue 28, item 5):
 * a receiver that is gone stops costing the org's delivery budget, and lessor's requests, after a
 * bounded number of attempts however many events come (without it, five days of every event's
 * eight attempts). A transient outage of an org with an event a minute uses about 20 of them an hour.
 */
export const MAX_CONSECUTIVE_FAILURES = 100;

/**
 * How long to wait before the next attempt, after `attempts` attempts that all failed; null when
 * the schedule is spent and the delivery has failed for good. `random` is in [0, 1).
 */
export function retryDelay(attempts: number, random: number): number | null {
  if (!Number.isInteger(attempts) || attempts < 1 || attempts >= MAX_ATTEMPTS) return null;
  const base = RETRY_SCHEDULE_MS[attempts]!;
  return Math.round(base * (1 + JITTER * (2 * random - 1)));
}

export type AttemptOutcome = { status: number; error: null } | { status: null; error: string };

export type Verdict =
  | { delivery: "succeeded"; endpoint: "healthy" }
  | { delivery: "pending"; next_at: number; endpoint: "failing" }
  | { delivery: "failed"; endpoint: "failing" | "disable_gone" | "disable_failing" };

/** How an endpoint has fared since its last delivery: its first failure since, and how many in a row. */
export interface EndpointHealth {
  failing_since: number | null;
  consecutive_failures: number;
}

/**
 * What one attempt means for its delivery and its endpoint. 2xx delivered; 410 Gone disables the
 * endpoint at once; anything else (another status, a timeout, a refused connection) is retried on
 * the schedule, and disables the endpoint once it has been failing FAILING_DISABLE_MS or this is
 * its MAX_CONSECUTIVE_FAILURES-th failure in a row.
 */
export function judgeAttempt(outcome: AttemptOutcome, attempts: number, health: EndpointHealth, now: number, random: number): Verdict {
  if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) return { delivery: "succeeded", endpoint: "healthy" };
  if (outcome.status === 410) return { delivery: "failed", endpoint: "disable_gone" };
  if (now - (health.failing_since ?? now) >= FAILING_DISABLE_MS) return { delivery: "failed", endpoint: "disable_failing" };
  if (health.consecutive_failures + 1 >= MAX_CONSECUTIVE_FAILURES) return { delivery: "failed", endpoint: "disable_failing" };
  const wait = retryDelay(attempts, random);
  return wait === null ? { delivery: "failed", endpoint: "failing" } : { delivery: "pending", next_at: now + wait, endpoint: "failing" };
}
