/** The org's budget of webhook attempts (src/webhooks/budget.ts): a bucket of a minute's worth, refilled evenly; past it the alarm waits for a run's worth. */
import { describe, expect, it } from "vitest";
import { budgetReadyAt, DEFAULT_DELIVERIES_PER_MINUTE, DEFAULT_FANOUT, deliveriesPerMinute, fanout, refilled } from "../../src/webhooks/budget";

const T0 = Date.UTC(2030, 0, 1);

describe("refilled", () => {
  it.each([
    ["a new bucket is full", null, 0, { tokens: 600, at: T0 }],
    ["an empty one gains 10 a second at 600 a minute", { tokens: 0, at: T0 }, 1_000, { tokens: 10, at: T0 + 1_000 }],
    ["never more than a minute's worth", { tokens: 590, at: T0 }, 60_000, { tokens: 600, at: T0 + 60_000 }],
    ["a clock that stepped back refills nothing", { tokens: 3, at: T0 + 5_000 }, 0, { tokens: 3, at: T0 }],
    ["an overdrawn bucket counts from empty", { tokens: -4, at: T0 }, 500, { tokens: 5, at: T0 + 500 }],
  ] as const)("%s", (_what, budget, after, expected) => {
    expect(refilled(budget, 600, T0 + after)).toEqual(expected);
  });
});

describe("budgetReadyAt", () => {
  it.each([
    ["now while a whole attempt is left", { tokens: 1, at: T0 }, 600, T0],
    ["a new bucket: now", null, 600, T0],
    ["empty: once a run's worth (20) has refilled, 2 s at 600 a minute", { tokens: 0, at: T0 }, 600, T0 + 2_000],
    ["less than one left: the rest of the run's worth", { tokens: 0.5, at: T0 }, 600, T0 + 1_950],
    ["a limit below a run's worth waits for the whole minute's", { tokens: 0, at: T0 }, 6, T0 + 60_000],
  ] as const)("%s", (_what, budget, perMinute, expected) => {
    expect(budgetReadyAt(budget, perMinute, 20, T0)).toBe(expected);
  });
});

describe("the settings", () => {
  it("default to 600 attempts a minute and 5 endpoints an event; a value that is not a positive integer is the default", () => {
    expect(DEFAULT_DELIVERIES_PER_MINUTE).toBe(600);
    expect(DEFAULT_FANOUT).toBe(5);
    expect(deliveriesPerMinute({})).toBe(600);
    expect(deliveriesPerMinute({ LESSOR_WEBHOOK_DELIVERIES_PER_MINUTE: "120" })).toBe(120);
    expect(deliveriesPerMinute({ LESSOR_WEBHOOK_DELIVERIES_PER_MINUTE: "0" })).toBe(600);
    expect(fanout({})).toBe(5);
    expect(fanout({ LESSOR_WEBHOOK_FANOUT: "20" })).toBe(20);
    expect(fanout({ LESSOR_WEBHOOK_FANOUT: "lots" })).toBe(5);
  });
});
