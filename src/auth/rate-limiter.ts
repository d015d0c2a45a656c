/**
 * Per-credential request budget: a token bucket of `limit` requests refilled evenly over a minute,
 * state in memory only: an evicted object starts with a full bucket, which errs on the side of
 * serving.
 *
 * An API key's bucket lives in its ApiKeyObject (key-object.ts), beside the key's row, so that a
 * request with a key makes one call for both. `RateLimiter` holds the buckets of everything else:
 * one object per JWT subject (issuer + sub), one for the bootstrap token, one per org (its budget
 * on top of its credentials', docs/design.md "Limits") and one per client address for failed
 * authentications (client-address.ts `authFailureBucket`). None of them writes storage.
 */
import { MeteredObject } from "../metered-object";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until one request is allowed again; 0 when allowed. */
  retry_after_s: number;
}

/** One credential's bucket. A refused request spends nothing. */
export class TokenBucket {
  #tokens = -1;
  #at = 0;

  /**
   * One request's token; with `more`, up to that many further whole tokens the bucket holds as
   * well, for the caller to spend itself (`granted`: how many were taken, 0 when refused).
   */
  take(limit: number, now: number, more = 0): RateDecision & { granted: number } {
    const perMs = limit / 60_000;
    // A clock that stepped back refills nothing (and does not drain the bucket).
    this.#tokens = this.#tokens < 0 ? limit : Math.min(limit, this.#tokens + Math.max(0, now - this.#at) * perMs);
    this.#at = now;
    if (this.#tokens >= 1) {
      const granted = 1 + Math.min(Math.max(0, Math.floor(more)), Math.floor(this.#tokens - 1));
      this.#tokens -= granted;
      return { allowed: true, limit, remaining: Math.floor(this.#tokens), retry_after_s: 0, granted };
    }
    const wait = Math.max(1, Math.ceil((1 - this.#tokens) / perMs / 1000));
    return { allowed: false, limit, remaining: 0, retry_after_s: wait, granted: 0 };
  }
}

export class RateLimiter extends MeteredObject {
  readonly #bucket = new TokenBucket();

  take(limit: number, more = 0): RateDecision & { granted: number } {
    return this.#bucket.take(limit, Date.now(), more);
  }
}

