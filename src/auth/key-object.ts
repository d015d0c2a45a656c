/**
 * One Durable Object per API key, addressed by the SHA-256 of its secret: the only place a key is
 * checked (functions/middleware.ts, through keys.ts `admitKey`) and the only place one is revoked
 * (keys.ts `revokeKey`). Because both go through this one object, it may keep the key's D1 row in
 * memory and still refuse a revoked key on its very next request, in every isolate (guarantee 9).
 * It also holds the key's request budget, so an authenticated request makes one call here instead
 * of a D1 read and then a call to a rate limiter (docs/performance.md).
 *
 * Memory only, like the RateLimiter: an evicted object reads the row again and starts with a full
 * bucket. An unknown key never reaches an object (keys.ts `admitKey` looks it up in D1 first), so a
 * guessed secret costs one D1 read and creates no object and no storage (docs/design.md "Limits").
 */
import { MeteredObject } from "../metered-object";
import { database } from "../db";
import { loadKeyRow, revokeKeyRow } from "./keys";
import type { Principal, Scope } from "./principal";
import { TokenBucket, type RateDecision } from "./token-bucket";

/**
 * How long a remembered row is trusted. Revocation through the API takes effect at once; this
 * bounds only a change made behind it (by hand, in D1), which takes effect within a minute.
 */
export const KEY_ROW_TTL_MS = 60_000;

export interface Admission {
  principal: Principal;
  decision: RateDecision;
}

interface LiveKey {
  id: string;
  org_id: string;
  scope: Scope;
  loaded_at: number;
}

export class ApiKeyObject extends MeteredObject {
  #key: LiveKey | null = null;
  /** Set before D1 is written, never cleared: a revoked key is never valid again. */
  #revoked = false;
  /** One D1 read for all the requests that arrive while it is in flight. */
  #loading: Promise<LiveKey | null> | null = null;
  readonly #bucket = new TokenBucket();

  /**
   * The key's principal and one unit of its budget, or null when the key is unknown or revoked
   * (which spends nothing). `hash` is the SHA-256 this object is named by.
   */
  async admit(hash: string, limit: number): Promise<Admission | null> {
    const key = await this.#live(hash);
    if (!key || this.#revoked) return null;
    return {
      principal: { org_id: key.org_id, scope: key.scope, kind: "api_key", subject: key.id },
      decision: this.#bucket.take(limit, Date.now()),
    };
  }

  /**
   * Refuses the key from now on: here first, so no request admitted after this call began gets
   * through, then in D1. When the D1 write fails the caller sees the error and may retry; until
   * then this object keeps refusing the key.
   */
  async revoke(hash: string, now: number): Promise<void> {
    this.#revoked = true;
    this.#key = null;
    await revokeKeyRow(database(this.env.DB), hash, now);
  }

  #live(hash: string): Promise<LiveKey | null> | LiveKey | null {
    const now = Date.now();
    const key = this.#key;
    if (key && now >= key.loaded_at && now - key.loaded_at < KEY_ROW_TTL_MS) return key;
    this.#loading ??= loadKeyRow(database(this.env.DB), hash)
      .then((row) => {
        if (row && row.revoked_at !== null) this.#revoked = true;
        // A revoke() that ran while the read was in flight wins over what the read found.
        this.#key = row && row.revoked_at === null && !this.#revoked ? { id: row.id, org_id: row.org_id, scope: row.scope, loaded_at: Date.now() } : null;
        return this.#key;
      })
      .finally(() => {
        this.#loading = null;
      });
    return this.#loading;
  }
}
