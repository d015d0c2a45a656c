/**
 * The retry rule (docs/design.md "Where each rule lives"): how long a lease waits after a failed
 * step before the next try, and when a failed index write is tried again. Pure: the failure is
 * passed in as read from the error, the jitter as a number in [0, 1), the clock as `now`.
 */
import { ProviderError } from "../providers/contract";
import { excerpt, EXCERPTS } from "./excerpt";
import type { LeaseRecord } from "./state";
import type { Step } from "./transitions";

/** The first wait after a failed step; it doubles with each further failure... */
export const BACKOFF_BASE_MS = 1_000;
/** ...up to this. */
export const BACKOFF_MAX_MS = 60_000;
/** At most this much is added to each wait, so leases that failed together do not retry together. */
export const BACKOFF_JITTER_MS = 250;
/** A failed write to the D1 index is retried this soon. */
export const INDEX_RETRY_MS = 1_000;

/** A failed step as the retry rule sees it. */
export interface Failure {
  /** The provider's kind of error (contract.ts), or `ambiguous` for anything that is not a ProviderError. */
  kind: ProviderError["kind"] | "ambiguous";
  /** A rate limit's own wait, when the provider said one. */
  retry_after_ms: number | null;
  /** The error as events and logs show it: provider, kind and message. */
  text: string;
  /** The error's own message. */
  message: string;
}

/** A failed step as the retry rule and the events see it; its words are bounded (excerpt.ts): events keep them. */
export function failureOf(e: unknown): Failure {
  const bounded = (text: string) => excerpt(text, EXCERPTS.error).text;
  const message = bounded(String(e instanceof Error ? e.message : e));
  if (e instanceof ProviderError) return { kind: e.kind, retry_after_ms: e.retryAfterMs, text: bounded(`${e.provider} ${e.kind}: ${message}`), message };
  return { kind: "ambiguous", retry_after_ms: null, text: message, message };
}

/**
 * How long to wait after the `failures`-th consecutive failure (0 for the first): a rate limit's
 * own wait when it gave one, else 1 s doubling per failure up to 60 s.
 */
export function retryWait(f: Pick<Failure, "kind" | "retry_after_ms">, failures: number): number {
  if (f.kind === "rate_limited" && f.retry_after_ms !== null) return f.retry_after_ms;
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(6, failures));
}

/** The lease after a failed step (`event`, e.g. `stop_failed`): it retries at `retry_at`. `jitter` in [0, 1). */
export function backoff(l: LeaseRecord, event: string, f: Failure, failures: number, jitter: number, now: number): Step {
  const wait = retryWait(f, failures) + Math.floor(jitter * BACKOFF_JITTER_MS);
  return { next: { ...l, retry_at: now + wait }, effect: { event, detail: { error: f.text, retry_in_ms: wait } } };
}

/** The failure count a write leaves: a change of state starts the backoff over. */
export function failuresAfter(before: LeaseRecord, after: LeaseRecord, failures: number): number {
  return after.state !== before.state ? 0 : failures;
}

/** The alarm when the index write failed: no later than `INDEX_RETRY_MS` from now. */
export function indexRetryAt(next: number | null, now: number): number {
  return next === null ? now + INDEX_RETRY_MS : Math.min(next, now + INDEX_RETRY_MS);
}
