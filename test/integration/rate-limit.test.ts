/**
 * Per-credential request budget: LESSOR_RATE_LIMIT_PER_MINUTE (600 in wrangler.toml) for one API key;
 * the request over it is 429 `rate_limited` with Retry-After; other credentials are unaffected.
 *
 * Two things keep this deterministic:
 * - The limiter (src/auth/rate-limiter.ts) is a token bucket refilled evenly over the minute, i.e.
 *   one request back every 100 ms at 600/min. Whether "the 601st" is refused would then depend on
 *   how fast this machine sends 600 requests, so the clock is frozen (vi fake Date: the Worker and
 *   its Durable Objects run in this isolate) and moved explicitly.
 * - SELF.fetch gets slower with every request a test worker has dispatched
 *   (cloudflare/workers-sdk#15446: ~6 ms to ~370 ms per request), so the 600 go through the
 *   Worker's own fetch handler with the same bindings; the requests that decide are sent through
 *   SELF, as a client would.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, expect, it, vi } from "vitest";
import worker from "../../functions/index";
import { BASE, call, createKey, createOrg, expectError, json } from "./helpers";

const BATCH = 50;

async function direct(key: string): Promise<Response> {
  const req = new Request(`${BASE}/v1/org`, { headers: { authorization: `Bearer ${key}` } });
  return await worker.fetch(req, env, createExecutionContext());
}

afterEach(() => {
  vi.useRealTimers();
});

it("the request after the budget is 429 rate_limited with Retry-After, for that key only", async () => {
  const limit = Number(env.LESSOR_RATE_LIMIT_PER_MINUTE);
  expect(limit).toBe(600);
  const org = await createOrg();
  const key = await createKey(org, "read");

  const t0 = Date.UTC(2031, 0, 1);
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(t0);

  const remaining: number[] = [];
  for (let sent = 0; sent < limit; sent += BATCH) {
    const batch = await Promise.all(Array.from({ length: Math.min(BATCH, limit - sent) }, () => direct(key.secret)));
    for (const res of batch) {
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe(String(limit));
      const left = res.headers.get("ratelimit-remaining");
      expect(left).toMatch(/^\d+$/);
      remaining.push(Number(left));
      await res.text();
    }
  }
  // Each request took exactly one unit: the remainders are limit-1 .. 0, each once.
  expect([...remaining].sort((a, b) => b - a)).toEqual(Array.from({ length: limit }, (_, i) => limit - 1 - i));

  const over = await call("GET", "/v1/org", { key: key.secret });
  const retryAfter = over.headers.get("retry-after");
  expect(over.headers.get("ratelimit-remaining")).toBe("0");
  const err = await expectError(over, 429, "rate_limited");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(err.details).toEqual({ limit_per_minute: limit, retry_after_s: Number(retryAfter) });
  // Refused requests do not spend budget: still refused, with the same Retry-After.
  const again = await call("GET", "/v1/org", { key: key.secret });
  expect(again.headers.get("retry-after")).toBe(retryAfter);
  await expectError(again, 429, "rate_limited");

  // Another key of the same org has its own budget.
  const other = await call("GET", "/v1/org", { key: org.adminKey });
  expect(other.status).toBe(200);
  expect((await json(other)).id).toBe(org.id);
  expect(other.headers.get("ratelimit-remaining")).toBe(String(limit - 1));

  // Retry-After is honest: once it has passed, the key is served again.
  vi.setSystemTime(t0 + Number(retryAfter) * 1000);
  const later = await call("GET", "/v1/org", { key: key.secret });
  expect(later.status).toBe(200);
}, 120_000);
