/** The retry schedule and what an attempt means (src/webhooks/schedule.ts), as a table. */
import { describe, expect, it } from "vitest";
import { FAILING_DISABLE_MS, judgeAttempt, MAX_ATTEMPTS, MAX_CONSECUTIVE_FAILURES, retryDelay } from "../../src/webhooks/schedule";

const S = 1_000;
const M = 60 * S;
const H = 60 * M;

describe("retryDelay", () => {
  // After n failed attempts, the wait before attempt n + 1 (Standard Webhooks 1.0).
  const table: Array<[attempts: number, wait: number | null]> = [
    [1, 5 * S],
    [2, 5 * M],
    [3, 30 * M],
    [4, 2 * H],
    [5, 5 * H],
    [6, 10 * H],
    [7, 10 * H],
    [8, null],
    [9, null],
    [0, null],
    [-1, null],
    [1.5, null],
  ];
  it.each(table)("after %s failed attempts waits %s ms (random 0.5: no jitter)", (attempts, wait) => {
    expect(retryDelay(attempts, 0.5)).toBe(wait);
  });

  it("spreads each wait by at most ±10 %", () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(retryDelay(1, 0)).toBe(4_500);
    expect(retryDelay(1, 0.999999)).toBe(5_500);
    expect(retryDelay(7, 0)).toBe(9 * H);
    expect(retryDelay(7, 0.999999)).toBeLessThan(11 * H);
    expect(retryDelay(7, 0.999999)).toBeGreaterThan(11 * H - 10);
  });
});

describe("judgeAttempt", () => {
  const now = 1_000_000_000_000;
  const ok = (status: number) => ({ status, error: null });
  const none = { status: null, error: "could not connect" } as const;
  it.each([
    [ok(200), 1, null, { delivery: "succeeded", endpoint: "healthy" }],
    [ok(204), 3, now - H, { delivery: "succeeded", endpoint: "healthy" }],
    [ok(299), 1, null, { delivery: "succeeded", endpoint: "healthy" }],
    [ok(300), 1, null, { delivery: "pending", next_at: now + 5 * S, endpoint: "failing" }],
    [ok(199), 1, null, { delivery: "pending", next_at: now + 5 * S, endpoint: "failing" }],
    [ok(410), 1, null, { delivery: "failed", endpoint: "disable_gone" }],
    [ok(404), 2, null, { delivery: "pending", next_at: now + 5 * M, endpoint: "failing" }],
    [none, 7, null, { delivery: "pending", next_at: now + 10 * H, endpoint: "failing" }],
    [ok(500), 8, null, { delivery: "failed", endpoint: "failing" }],
    [ok(500), 1, now - FAILING_DISABLE_MS + 1, { delivery: "pending", next_at: now + 5 * S, endpoint: "failing" }],
    [ok(500), 1, now - FAILING_DISABLE_MS, { delivery: "failed", endpoint: "disable_failing" }],
    [none, 3, now - FAILING_DISABLE_MS - 1, { delivery: "failed", endpoint: "disable_failing" }],
    // A success clears everything, however long it was failing.
    [ok(200), 2, now - 2 * FAILING_DISABLE_MS, { delivery: "succeeded", endpoint: "healthy" }],
  ] as const)("%j after %s attempts, failing since %s", (outcome, attempts, since, verdict) => {
    expect(judgeAttempt(outcome, attempts, { failing_since: since, consecutive_failures: 0 }, now, 0.5)).toEqual(verdict);
  });

  // However young the failure: the MAX_CONSECUTIVE_FAILURES-th failure in a row disables (issue 28, item 5).
  it.each([
    [ok(500), MAX_CONSECUTIVE_FAILURES - 2, { delivery: "pending", next_at: now + 5 * S, endpoint: "failing" }],
    [ok(500), MAX_CONSECUTIVE_FAILURES - 1, { delivery: "failed", endpoint: "disable_failing" }],
    [none, MAX_CONSECUTIVE_FAILURES - 1, { delivery: "failed", endpoint: "disable_failing" }],
    [none, MAX_CONSECUTIVE_FAILURES + 5, { delivery: "failed", endpoint: "disable_failing" }],
    [ok(410), 0, { delivery: "failed", endpoint: "disable_gone" }],
    [ok(200), MAX_CONSECUTIVE_FAILURES - 1, { delivery: "succeeded", endpoint: "healthy" }],
  ] as const)("%j after %s failures in a row", (outcome, failures, verdict) => {
    expect(judgeAttempt(outcome, 1, { failing_since: now - M, consecutive_failures: failures }, now, 0.5)).toEqual(verdict);
  });
});
