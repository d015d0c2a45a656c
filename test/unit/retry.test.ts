/**
 * retry.ts: the wait after a failed step on both sides of each boundary (the provider's own wait,
 * the doubling, its cap), the jitter's bounds, when the failure count starts over, and when a
 * failed index write is tried again.
 */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/providers/contract";
import {
  backoff,
  BACKOFF_BASE_MS,
  BACKOFF_JITTER_MS,
  BACKOFF_MAX_MS,
  failureOf,
  failuresAfter,
  indexRetryAt,
  INDEX_RETRY_MS,
  retryWait,
  type Failure,
} from "../../src/lease/retry";
import { lease, T0 } from "../support/lease-fixture";

const failure = (kind: Failure["kind"], retry_after_ms: number | null = null): Failure => ({ kind, retry_after_ms, text: `sim ${kind}: x`, message: "x" });

describe("retryWait: a rate limit's own wait, else doubling up to the cap", () => {
  it.each([
    { name: "first failure", f: failure("unavailable"), failures: 0, wait: BACKOFF_BASE_MS },
    { name: "second failure doubles", f: failure("unavailable"), failures: 1, wait: 2 * BACKOFF_BASE_MS },
    { name: "sixth failure, just under the cap", f: failure("unavailable"), failures: 5, wait: 32_000 },
    { name: "seventh failure reaches the cap", f: failure("unavailable"), failures: 6, wait: BACKOFF_MAX_MS },
    { name: "many failures stay at the cap", f: failure("unavailable"), failures: 40, wait: BACKOFF_MAX_MS },
    { name: "a rate limit with its own wait", f: failure("rate_limited", 5_000), failures: 4, wait: 5_000 },
    { name: "a rate limit's own wait of 0 is kept", f: failure("rate_limited", 0), failures: 4, wait: 0 },
    { name: "a rate limit without a wait doubles", f: failure("rate_limited", null), failures: 2, wait: 4 * BACKOFF_BASE_MS },
    { name: "a wait on another kind is not believed", f: failure("unavailable", 5_000), failures: 0, wait: BACKOFF_BASE_MS },
  ])("$name: $wait ms", ({ f, failures, wait }) => {
    expect(retryWait(f, failures)).toBe(wait);
  });
});

describe("backoff: the record and event a failed step leaves", () => {
  const l = lease("stopping");
  it("no jitter: retry at now + wait, the wait in the event", () => {
    const step = backoff(l, "stop_failed", failure("unavailable"), 1, 0, T0);
    expect(step.next).toEqual({ ...l, retry_at: T0 + 2 * BACKOFF_BASE_MS });
    expect(step.effect).toEqual({ event: "stop_failed", detail: { error: "sim unavailable: x", retry_in_ms: 2 * BACKOFF_BASE_MS } });
  });
  it("the jitter adds at most BACKOFF_JITTER_MS - 1", () => {
    expect(backoff(l, "e", failure("unavailable"), 0, 0.9999, T0).next.retry_at).toBe(T0 + BACKOFF_BASE_MS + BACKOFF_JITTER_MS - 1);
  });
});

describe("failuresAfter: a change of state starts the backoff over", () => {
  it("same state: the count is kept", () => expect(failuresAfter(lease("stopping"), lease("stopping"), 3)).toBe(3));
  it("another state: 0", () => expect(failuresAfter(lease("stopping"), lease("stopped"), 3)).toBe(0));
});

describe("indexRetryAt: a failed index write is tried again within INDEX_RETRY_MS", () => {
  it("no alarm: one at now + INDEX_RETRY_MS", () => expect(indexRetryAt(null, T0)).toBe(T0 + INDEX_RETRY_MS));
  it("a later alarm is brought forward", () => expect(indexRetryAt(T0 + INDEX_RETRY_MS + 1, T0)).toBe(T0 + INDEX_RETRY_MS));
  it("an alarm at the bound stays", () => expect(indexRetryAt(T0 + INDEX_RETRY_MS, T0)).toBe(T0 + INDEX_RETRY_MS));
  it("an earlier alarm stays", () => expect(indexRetryAt(T0 + 1, T0)).toBe(T0 + 1));
});

describe("failureOf: what the retry rule reads from an error", () => {
  it("a ProviderError: its kind, its wait, provider and kind in the text", () => {
    expect(failureOf(new ProviderError("sim", "rate_limited", "slow down", 3_000))).toEqual({
      kind: "rate_limited", retry_after_ms: 3_000, text: "sim rate_limited: slow down", message: "slow down",
    });
  });
  it("anything else is ambiguous, with its message", () => {
    expect(failureOf(new Error("socket closed"))).toEqual({ kind: "ambiguous", retry_after_ms: null, text: "socket closed", message: "socket closed" });
    expect(failureOf("odd")).toEqual({ kind: "ambiguous", retry_after_ms: null, text: "odd", message: "odd" });
  });
});
