/**
 * The quote's and the create's offer query reads one GPU class's offers through the class index,
 * never every offer of a provider (src/catalog/offers-repo.ts `fittingOffersQuery`). Checked with
 * SQLite's own plan, on D1, with each number of providers allowed.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fittingOffersQuery } from "../../src/catalog/offers-repo";
import type { GpuToken, Spec } from "../../src/catalog/spec";
import { database } from "../../src/db";
import { queryPlan } from "./helpers";

const spec = { spot: false } as Spec;
const token: GpuToken = { gpu: "l4", provider: null, count: 1 };

describe("the offers a spec can use", () => {
  for (const providers of [["sim"], ["sim", "vast"], ["sim", "runpod", "vast", "lambda"]]) {
    it(`narrowed by class, reads through the class index with ${providers.length} provider(s) allowed`, async () => {
      const detail = await queryPlan(fittingOffersQuery(database(env.DB), "l4", spec, token, providers, Date.now()));
      expect(detail).toContain("offers_class_price (gpu_class=?)");
      expect(detail).not.toContain("offers_provider");
    });
  }

  it("with no class to narrow by, the provider index is still the one to use", async () => {
    expect(await queryPlan(fittingOffersQuery(database(env.DB), null, spec, null, ["sim"], Date.now()))).toContain("offers_provider");
  });
});
