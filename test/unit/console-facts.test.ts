/** What the browser console says about a lease: its cost so far and its next deadline (console/src/lease-facts.ts). */
import { describe, expect, it } from "vitest";
import type { components } from "../../cli/api-types";
import { duration } from "../../console/src/format";
import { costSoFar, nextDeadline } from "../../console/src/lease-facts";

type Lease = components["schemas"]["Lease"];
type Guard = components["schemas"]["GuardedLease"]["guard"];

const AS_OF = Date.parse("2026-12-01T10:00:00.000Z");
const HOUR = 3_600_000;

function lease(state: Lease["state"], actual: number | null = null): Lease {
  return {
    state,
    billing: {
      status: actual === null ? "accruing" : "settled",
      estimate: {
        label: "estimate",
        amount_usd: 1,
        running_usd: 1,
        stopped_usd: 0,
        running_seconds: 3600,
        stopped_seconds: 0,
        hourly_usd: 2,
        stopped_hourly_usd: 0.5,
        as_of: new Date(AS_OF).toISOString(),
      },
      actual_usd: actual,
      receipt_id: null,
    },
  } as Lease;
}

const guard = (over: Partial<Guard>): Guard => ({ action: "release", reason: "ttl_expired", at: new Date(AS_OF).toISOString(), due: false, agent_silent_since: null, activity: null, ...over });

describe("costSoFar", () => {
  it("carries a running lease's estimate forward at its rate, a stopped one's at the disk's, a released one's not at all", () => {
    expect(costSoFar(lease("ready"), AS_OF + HOUR)).toEqual({ usd: 3, estimate: true });
    expect(costSoFar(lease("stopped"), AS_OF + HOUR)).toEqual({ usd: 1.5, estimate: true });
    expect(costSoFar(lease("released"), AS_OF + HOUR)).toEqual({ usd: 1, estimate: true });
  });

  it("adds nothing before the estimate's as_of (a clock behind the server's)", () => {
    expect(costSoFar(lease("ready"), AS_OF - HOUR)).toEqual({ usd: 1, estimate: true });
    expect(costSoFar(lease("ready"), AS_OF)).toEqual({ usd: 1, estimate: true });
  });

  it("is the billed amount once there is one, zero included", () => {
    expect(costSoFar(lease("released", 0.42), AS_OF + HOUR)).toEqual({ usd: 0.42, estimate: false });
    expect(costSoFar(lease("released", 0), AS_OF + HOUR)).toEqual({ usd: 0, estimate: false });
  });
});

describe("nextDeadline", () => {
  it("is nothing without a guard, a time, or an action", () => {
    expect(nextDeadline(undefined, AS_OF)).toBeNull();
    expect(nextDeadline(guard({ at: null }), AS_OF)).toBeNull();
    expect(nextDeadline(guard({ action: "none" }), AS_OF)).toBeNull();
  });

  it("counts down to the deadline, with its reason, and is due at it and after", () => {
    expect(nextDeadline(guard({}), AS_OF - 61_000)).toBe("release in 1m 01s (ttl_expired)");
    expect(nextDeadline(guard({}), AS_OF - 1_000)).toBe("release in 1s (ttl_expired)");
    expect(nextDeadline(guard({}), AS_OF)).toBe("release due now (ttl_expired)");
    expect(nextDeadline(guard({}), AS_OF + 1_000)).toBe("release due now (ttl_expired)");
    expect(nextDeadline(guard({ due: true }), AS_OF - HOUR)).toBe("release due now (ttl_expired)");
  });

  it("names the action and leaves out a missing reason", () => {
    expect(nextDeadline(guard({ action: "replace_host", reason: null }), AS_OF - 5_000)).toBe("replace host in 5s");
  });
});

describe("duration", () => {
  it("writes seconds, then minutes and seconds, then hours and minutes", () => {
    expect(duration(59_000)).toBe("59s");
    expect(duration(60_000)).toBe("1m 00s");
    expect(duration(HOUR - 1_000)).toBe("59m 59s");
    expect(duration(HOUR)).toBe("1h 00m");
    expect(duration(-5_000)).toBe("0s");
  });
});
