/**
 * A token bucket of `limit` units refilled evenly over a minute, in memory (no I/O; the clock is
 * passed in): a credential's requests (src/auth/rate-limiter.ts, key-object.ts) and a lease
 * token's calls and log bytes (src/occupant/agent-budget.ts).
 */
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
    const decision = this.spend(limit, now, 1);
    if (!decision.allowed) return { ...decision, remaining: 0, granted: 0 };
    const granted = 1 + Math.min(Math.max(0, Math.floor(more)), decision.remaining);
    this.#tokens -= granted - 1;
    return { ...decision, remaining: Math.floor(this.#tokens), granted };
  }

  /**
   * `units` tokens at once (a lease's log chunk spends its bytes), or none when the bucket holds
   * fewer: then `retry_after_s` is when it will hold them. A `units` above `limit` never passes.
   */
  spend(limit: number, now: number, units: number): RateDecision {
    const perMs = limit / 60_000;
    // A clock that stepped back refills nothing (and does not drain the bucket).
    this.#tokens = this.#tokens < 0 ? limit : Math.min(limit, this.#tokens + Math.max(0, now - this.#at) * perMs);
    this.#at = now;
    if (this.#tokens >= units) {
      this.#tokens -= units;
      return { allowed: true, limit, remaining: Math.floor(this.#tokens), retry_after_s: 0 };
    }
    const wait = Math.max(1, Math.ceil((units - this.#tokens) / perMs / 1000));
    return { allowed: false, limit, remaining: Math.floor(this.#tokens), retry_after_s: wait };
  }
}
