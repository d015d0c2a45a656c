/**
 * Per-credential request budget: a token bucket of `limit` requests refilled evenly over a minute.
 * One object per credential (API key id, or issuer + subject), state in memory only: an evicted
 * object starts with a full bucket, which errs on the side of serving.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until one request is allowed again; 0 when allowed. */
  retry_after_s: number;
}

export class RateLimiter extends DurableObject<Env> {
  #tokens = -1;
  #at = 0;

  take(limit: number): RateDecision {
    const now = Date.now();
    const perMs = limit / 60_000;
    this.#tokens = this.#tokens < 0 ? limit : Math.min(limit, this.#tokens + (now - this.#at) * perMs);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return { allowed: true, limit, remaining: Math.floor(this.#tokens), retry_after_s: 0 };
    }
    const wait = Math.max(1, Math.ceil((1 - this.#tokens) / perMs / 1000));
    return { allowed: false, limit, remaining: 0, retry_after_s: wait };
  }
}
