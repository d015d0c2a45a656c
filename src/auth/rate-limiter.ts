/**
 * Per-credential request budget: a token bucket of `limit` requests refilled evenly over a minute,
 * state in memory only: an evicted object starts with a full bucket, which errs on the side of
 * serving.
 *
 * An API key's bucket lives in its ApiKeyObject (key-object.ts), beside the key's row, so that a
 * request with a key makes one call for both. `RateLimiter` holds the buckets of everything else:
 * one object per JWT subject (issuer + sub), one for the bootstrap token, one per org (its budget
 * on top of its credentials', docs/design.md "Limits"), one per client address for failed
 * authentications (client-address.ts `authFailureBucket`), and one per org for its open streams
 * and long polls (stream-slots.ts, a count rather than a bucket). None of them writes storage.
 */
import { MeteredObject } from "../metered-object";
import { SlotTable, type SlotClaim, type SlotPool, type SlotRefusal } from "./stream-slots";
import { TokenBucket, type RateDecision } from "./token-bucket";

export class RateLimiter extends MeteredObject {
  readonly #bucket = new TokenBucket();
  /** An org's open streams and long polls, in the object named `streams:<org id>` (stream-slots.ts). */
  readonly #slots = new SlotTable();

  take(limit: number, more = 0): RateDecision & { granted: number } {
    return this.#bucket.take(limit, Date.now(), more);
  }

  acquireSlot(id: string, claim: SlotClaim): SlotRefusal | null {
    return this.#slots.acquire(id, claim, Date.now());
  }

  renewSlots(held: { id: string; pool: SlotPool; credential: string }[]): void {
    this.#slots.renew(held, Date.now());
  }

  releaseSlot(id: string): void {
    this.#slots.release(id);
  }
}

