/**
 * Filters on facts only some providers state (reliability, internet speeds, CUDA): the sim states
 * none of them, so no sim offer ever passes one, and a quote says which filter removed them.
 * test/integration/vast-placement.test.ts checks asks that do state them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createOrg, expectError, json, refreshCatalog } from "./helpers";

describe("filters on stated facts, against offers that state nothing", () => {
  let key: string;
  beforeAll(async () => {
    key = (await createKey(await createOrg(), "write")).secret;
    await refreshCatalog();
  });
  const list = async (query: string) => (await json(await call("GET", `/v1/catalog/offers?provider=sim&limit=200&${query}`, { key }))).data as any[];

  it("lists the facts as null, and no offer under a filter on one, even at its least", async () => {
    const all = await list("gpu=l4");
    expect(all.length).toBeGreaterThan(0);
    for (const o of all) expect(o).toMatchObject({ reliability: null, inet_down_mbps: null, inet_up_mbps: null });
    for (const q of ["min_reliability=0", "min_inet_down_mbps=0", "min_inet_up_mbps=0", "min_cuda=1"]) expect(await list(`gpu=l4&${q}`), q).toEqual([]);
  });

  it.each([
    ["min_reliability", 0, "min_reliability"],
    ["min_inet_down_mbps", 0, "min_inet_down_mbps"],
    ["min_inet_up_mbps", 0, "min_inet_up_mbps"],
  ])("a quote with %s %d: no_capacity names it", async (field, min, constraint) => {
    const e = await expectError(await call("POST", "/v1/quotes", { key, body: { spec: { gpu: "l4-sim:1", [field]: min } } }), 409, "no_capacity");
    expect(e.details.constraint).toBe(constraint);
  });

  it.each(["min_reliability=1.01", "min_reliability=-0.1", "min_inet_down_mbps=-1", "min_inet_up_mbps=fast", "min_cuda=0.5"])("refuses %s with a 400", async (q) => {
    await expectError(await call("GET", `/v1/catalog/offers?${q}`, { key }), 400);
  });
});
