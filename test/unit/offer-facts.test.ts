import { describe, expect, it } from "vitest";
import type { Offer } from "../../src/catalog/offer";
import { atLeast, constraintsOf, selectOffer } from "../../src/catalog/selector";
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
    [{ gpu: "l4", max_startup_s: 60 }, false],
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
