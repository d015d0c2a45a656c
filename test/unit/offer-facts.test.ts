import { describe, expect, it } from "vitest";
import type { Offer } from "../../src/catalog/offer";
import { atLeast, atMost, constraintsOf, selectOffer, startupCandidates } from "../../src/catalog/selector";
import { noCapacity } from "../../src/catalog/quote";
import { normalizeSimOffer, simStartupS, generateSimOffers } from "../../src/providers/sim/offers";
import { parseGpuToken, SpecSchema, type Spec } from "../../src/catalog/spec";
import { vastPlacement } from "../../src/providers/vast/adapter";
import { offer } from "../support/lease-fixture";

const token = parseGpuToken("l40s:1");
const pick = (o: Partial<Offer>, spec: Omit<Spec, "gpu">) => selectOffer([{ ...offer, ...o }], constraintsOf({ gpu: "l40s:1", ...spec }, token, ["sim"]));

describe("filters on facts only some providers state", () => {
  it.each([
    // spec field, offer field, the minimum, the offer's value (undefined: not stated), passes
    ["min_reliability", "reliability", 0.99, 0.99, true],
    ["min_reliability", "reliability", 0.99, 0.9899, false],
    ["min_reliability", "reliability", 0.99, 1, true],
    ["min_reliability", "reliability", 0, 0, true],
    ["min_reliability", "reliability", 0, undefined, false],
    ["min_inet_down_mbps", "inet_down_mbps", 500, 500, true],
    ["min_inet_down_mbps", "inet_down_mbps", 500, 499.9, false],
    ["min_inet_down_mbps", "inet_down_mbps", 0, undefined, false],
    ["min_inet_up_mbps", "inet_up_mbps", 100, 100, true],
    ["min_inet_up_mbps", "inet_up_mbps", 100, 99, false],
    ["min_inet_up_mbps", "inet_up_mbps", 1, undefined, false],
  ] as const)("%s %s >= %d: an offer stating %j passes: %s", (field, fact, min, value, passes) => {
    const r = pick(value === undefined ? {} : { [fact]: value }, { [field]: min });
    expect(r.ok).toBe(passes);
    if (!r.ok) expect(r).toEqual({ ok: false, constraint: field, candidates_before: 1 });
  });

  it.each([
    // the maximum, the offer's startup_s (undefined: not stated), passes
    [60, 60, true],
    [60, 61, false],
    [60, 59, true],
    [1, 1, true],
    [1, 2, false],
    [86_400, undefined, false],
  ] as const)("max_startup_s %d: an offer stating %j passes: %s", (max, value, passes) => {
    const r = pick(value === undefined ? {} : { startup_s: value }, { max_startup_s: max });
    expect(r.ok).toBe(passes);
    if (!r.ok) expect(r).toEqual({ ok: false, constraint: "max_startup_s", candidates_before: 1 });
  });

  it("atMost: not stated never is", () => {
    expect(atMost(undefined, 1_000)).toBe(false);
    expect(atMost(5, 5)).toBe(true);
    expect(atMost(6, 5)).toBe(false);
  });

  it("min_cuda: stated at least the need passes; below, or not stated, never", () => {
    expect(pick({ cuda_max: 12.8 }, { min_cuda: 12.8 }).ok).toBe(true);
    expect(pick({ cuda_max: 12.6 }, { min_cuda: 12.8 })).toMatchObject({ ok: false, constraint: "cuda" });
    expect(pick({}, { min_cuda: 1 })).toMatchObject({ ok: false, constraint: "cuda" });
  });

  it("no filter asked: an offer that states nothing is chosen", () => {
    expect(pick({}, {}).ok).toBe(true);
  });

  it("atLeast: not stated never reaches", () => {
    expect(atLeast(undefined, 0)).toBe(false);
    expect(atLeast(0, 0)).toBe(true);
    expect(atLeast(-1, 0)).toBe(false);
  });
});

describe("max_startup_s: what no_capacity says", () => {
  const spec = { gpu: "l40s:1", max_startup_s: 30 };
  const constraints = constraintsOf(spec, token, ["sim"]);
  const why = (offers: Partial<Offer>[]) => {
    const all = offers.map((o, i) => ({ ...offer, id: `sim:${i}`, ...o }));
    const r = selectOffer(all, constraints);
    if (r.ok) throw new Error("expected no offer to fit");
    return noCapacity(r, all, constraints);
  };

  it("none states a startup time", () => {
    const e = why([{}, {}]);
    expect(e.message).toBe("2 offer(s) fit, but none states a startup time, and max_startup_s passes only offers that state one");
    expect(e.details).toMatchObject({ constraint: "max_startup_s", candidates_before: 2, stating_startup: 0, fastest_startup_s: null });
  });

  it("every stated one is slower: how many state one, and the fastest", () => {
    const e = why([{ startup_s: 31 }, { startup_s: 45 }, {}]);
    expect(e.message).toBe("3 offer(s) fit, but none states a startup time at or below max_startup_s: 2 state one, the fastest 31 s");
    expect(e.details).toMatchObject({ constraint: "max_startup_s", candidates_before: 3, stating_startup: 2, fastest_startup_s: 31 });
  });

  it("counts only offers that met the constraints before it", () => {
    expect(startupCandidates([{ ...offer, startup_s: 5 }, { ...offer, gpu: "h100", startup_s: 1 }], constraints)).toEqual({ stating: 1, fastest_s: 5 });
    expect(startupCandidates([], constraints)).toEqual({ stating: 0, fastest_s: null });
  });
});

describe("the sim states its boot model as its offers' startup time", () => {
  it.each([
    [500, 1500, 2],
    [0, 0, 0],
    [0, 1, 1],
    [1000, 1000, 2],
    [1000, 1001, 3],
  ])("provision %d ms + boot %d ms: %d s", (provision_delay_ms, boot_delay_ms, s) => {
    expect(simStartupS({ provision_delay_ms, boot_delay_ms })).toBe(s);
  });

  it("an offer carries what the market answer states, and nothing when it states none", () => {
    const o = generateSimOffers(1)[0]!;
    expect(normalizeSimOffer({ ...o, startup_s: 2 })?.startup_s).toBe(2);
    expect(normalizeSimOffer(o)).not.toHaveProperty("startup_s");
  });
});

describe("SpecSchema: the new minimums", () => {
  it.each([
    [{ gpu: "l4", min_reliability: 0 }, true],
    [{ gpu: "l4", min_reliability: 1 }, true],
    [{ gpu: "l4", min_reliability: -0.01 }, false],
    [{ gpu: "l4", min_reliability: 1.01 }, false],
    [{ gpu: "l4", min_inet_down_mbps: 0 }, true],
    [{ gpu: "l4", min_inet_down_mbps: 1_000_000 }, true],
    [{ gpu: "l4", min_inet_down_mbps: -1 }, false],
    [{ gpu: "l4", min_inet_up_mbps: 1_000_001 }, false],
    [{ gpu: "l4", min_inet_up_mbps: "100" }, false],
    [{ gpu: "l4", max_startup_s: 60 }, true],
    [{ gpu: "l4", max_startup_s: 1 }, true],
    [{ gpu: "l4", max_startup_s: 86_400 }, true],
    [{ gpu: "l4", max_startup_s: 0 }, false],
    [{ gpu: "l4", max_startup_s: 86_401 }, false],
    [{ gpu: "l4", max_startup_s: 1.5 }, false],
    [{ gpu: "l4", max_startup_s: "60" }, false],
  ] as Array<[unknown, boolean]>)("%j: valid %s", (spec, valid) => {
    expect(SpecSchema.safeParse(spec).success).toBe(valid);
  });
});

describe("vastPlacement: what an ask states, and nothing it does not", () => {
  it.each([
    [{}, {}],
    [{ reliability2: 0.995, reliability: 0.9 }, { reliability: 0.995 }],
    [{ reliability: 0.9 }, { reliability: 0.9 }],
    [{ reliability2: 1 }, { reliability: 1 }],
    [{ reliability2: 0 }, { reliability: 0 }],
    [{ reliability2: 1.2 }, {}],
    [{ reliability2: -0.1 }, {}],
    [{ reliability2: "0.99" }, {}],
    [{ inet_down: 654.6, inet_up: 78.9 }, { inet_down_mbps: 654.6, inet_up_mbps: 78.9 }],
    [{ inet_down: 0, inet_up: -1 }, { inet_down_mbps: 0 }],
    [{ inet_down: null }, {}],
    [{ cuda_max_good: 12.8, inet_down_cost: 0.01 }, { cuda_max: 12.8, inet_down_usd_per_gb: 0.01 }],
  ] as Array<[Record<string, unknown>, Partial<Offer>]>)("%j -> %j", (ask, facts) => {
    expect(vastPlacement(ask)).toEqual(facts);
  });
});
