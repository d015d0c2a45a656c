/**
 * The pure parts of the per-org storage bounds (issue 28 item 4): each cap's setting, the 429 it
 * answers and its Retry-After, the id floor a count of recent rows reads from, and how much a
 * retention run deletes, on both sides of each boundary.
 */
import { describe, expect, it } from "vitest";
import { MAX_API_KEY_ROWS, REVOKED_KEY_RETENTION_MS } from "../../src/auth/limits";
import { capReached, creationCaps, CREATION_WINDOW_MS, INGRESS_EVENTS_PER_DAY, LEASES_PER_DAY, QUOTES_PER_DAY, retryAfterS } from "../../src/db/creation-caps";
import { CRON_PERIOD_MS, RETENTION_CATCH_UP, RETENTION_MIN_BATCH, retentionPlan, runShare } from "../../src/db/retention";
import { idFloor, newId } from "../../src/ids";
import { MAX_HOST_ATTEMPTS } from "../../src/lease/policy";

describe("creationCaps", () => {
  it.each([
    [{}, { quotes: QUOTES_PER_DAY, leases: LEASES_PER_DAY, ingress_events: INGRESS_EVENTS_PER_DAY }],
    [{ LESSOR_QUOTES_PER_DAY: "3", LESSOR_LEASES_PER_DAY: "1", LESSOR_INGRESS_EVENTS_PER_DAY: "100000000" }, { quotes: 3, leases: 1, ingress_events: 100_000_000 }],
    // Anything but a positive whole number is the default.
    [{ LESSOR_QUOTES_PER_DAY: "0", LESSOR_LEASES_PER_DAY: "-5", LESSOR_INGRESS_EVENTS_PER_DAY: "1.5" }, { quotes: QUOTES_PER_DAY, leases: LEASES_PER_DAY, ingress_events: INGRESS_EVENTS_PER_DAY }],
    [{ LESSOR_QUOTES_PER_DAY: "ten" }, { quotes: QUOTES_PER_DAY, leases: LEASES_PER_DAY, ingress_events: INGRESS_EVENTS_PER_DAY }],
  ])("%j -> %j", (env, caps) => {
    expect(creationCaps(env)).toEqual(caps);
  });
});

describe("retryAfterS: when the oldest row counted leaves the window", () => {
  const now = 1_800_000_000_000;
  it.each([
    [now, CREATION_WINDOW_MS / 1000],
    [now - CREATION_WINDOW_MS + 1_500, 2],
    [now - CREATION_WINDOW_MS + 1, 1],
    // Already out of the window, or gone: at once, at least a second.
    [now - CREATION_WINDOW_MS, 1],
    [now - CREATION_WINDOW_MS - 60_000, 1],
    [null, 1],
  ])("oldest %s -> %i s", (oldest, seconds) => {
    expect(retryAfterS(oldest, now)).toBe(seconds);
  });

  it("capReached is 429 rate_limited naming the cap, its window and Retry-After", () => {
    const e = capReached("quotes", 3, 42);
    expect({ status: e.status, code: e.code, details: e.details, headers: e.headers }).toEqual({
      status: 429,
      code: "rate_limited",
      details: { budget: "quotes", max: 3, window_s: 86_400, retry_after_s: 42 },
      headers: { "Retry-After": "42" },
    });
  });
});

describe("idFloor: the least id made at or after a time", () => {
  it("sorts below every id made then or later and above every id made before", () => {
    const at = 1_800_000_000_123;
    const floor = idFloor("qt", at);
    for (const t of [at, at + 1, at + 86_400_000]) expect(newId("qt", t) >= floor).toBe(true);
    for (const t of [at - 1, at - 86_400_000, 0]) expect(newId("qt", t) < floor).toBe(true);
    expect(newId("ls", at) >= idFloor("ls", at)).toBe(true);
  });
});

describe("runShare: a run deletes what the owners may add in a period, twice over, at least the floor", () => {
  const day = 86_400_000;
  it.each([
    // No owners, or few: the floor.
    [10_000, day, 0, RETENTION_MIN_BATCH],
    [10_000, day, 1, RETENTION_MIN_BATCH],
    // 10,000 a day for 36 orgs: 250 a minute, 500 twice over: the floor exactly; one org more passes it.
    [10_000, day, 36, 500],
    [10_000, day, 37, 514],
    [10_000, day, 1_000, 13_889],
    // A longer window: less a run (463 for 10,000 owners: the floor).
    [1_000, 30 * day, 10_000, RETENTION_MIN_BATCH],
    [1_000, 30 * day, 100_000, 4_630],
  ])("%i per owner per %i ms, %i owners -> %i", (perWindow, windowMs, owners, share) => {
    expect(runShare(perWindow, windowMs, owners)).toBe(share);
  });

  it("scales with the cron period", () => {
    // 13,888.9 a minute, so 69,444.4 in five.
    expect(runShare(10_000, day, 1_000)).toBe(13_889);
    expect(runShare(10_000, day, 1_000, 5 * CRON_PERIOD_MS)).toBe(69_445);
    expect(RETENTION_CATCH_UP).toBe(2);
  });
});

describe("retentionPlan: each table's share from the caps that bound it", () => {
  it("derives every table from its bound", () => {
    const caps = { quotes: 10_000, leases: 5_000, ingress_events: 10_000 };
    const plan = retentionPlan(caps, { orgs: 1_000, accounts: 301 });
    expect(plan).toEqual({
      quotes: runShare(10_000, CREATION_WINDOW_MS, 1_000),
      // One record per create that succeeded with a key: quotes and leases together.
      idempotency: runShare(15_000, CREATION_WINDOW_MS, 1_000),
      ingress_events: runShare(10_000, CREATION_WINDOW_MS, 301),
      // At most host_attempts - 1 hosts marked per lease.
      bad_hosts: runShare(5_000 * (MAX_HOST_ATTEMPTS - 1), CREATION_WINDOW_MS, 1_000),
      api_keys: runShare(MAX_API_KEY_ROWS, REVOKED_KEY_RETENTION_MS, 1_000),
    });
    expect(plan.quotes).toBe(13_889);
    expect(plan.idempotency).toBe(20_834);
  });

  it("is the floor for a small installation", () => {
    expect(retentionPlan({ quotes: 10_000, leases: 5_000, ingress_events: 10_000 }, { orgs: 3, accounts: 2 })).toEqual({
      quotes: RETENTION_MIN_BATCH,
      idempotency: RETENTION_MIN_BATCH,
      ingress_events: RETENTION_MIN_BATCH,
      bad_hosts: RETENTION_MIN_BATCH,
      api_keys: RETENTION_MIN_BATCH,
    });
  });
});
