/**
 * Placement the market allows, and bandwidth in the estimate, through the real Vast adapter against
 * the stub cloud: the stub's 8 x H100 ask leaves the market in a day and bills $0.004/GB down and
 * $0.02/GB up (test/support/stub-clouds/vast.ts), as Vast's offers say (`duration`,
 * `inet_down_cost`, `inet_up_cost`).
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { call, expectError, json, orgOnStubCloud } from "./helpers";

const stubs = inject("stubClouds");
/** The stub's H100 ask's `storage_cost`, $/GB/month. */
const STORAGE_COST = 0.25;
const served = stubs?.providers.includes("vast") ?? false;

describe("Vast offers: the host's market duration and bandwidth", () => {
  let key: string;
  const quote = (body: unknown) => call("POST", "/v1/quotes", { key, body });

  beforeAll(async () => {
    if (served) ({ key } = await orgOnStubCloud("vast"));
  });

  it.skipIf(!served)("the catalog shows the host's duration, CUDA and $/GB", async () => {
    const page = await json(await call("GET", "/v1/catalog/offers?provider=vast&gpu=h100&limit=5", { key }));
    expect(page.data[0]).toMatchObject({ host_duration_s: 86_400, cuda_max: 12.8, inet_down_usd_per_gb: 0.004, inet_up_usd_per_gb: 0.02 });
  });

  it.skipIf(!served)("a quote shows bandwidth as its own part of the estimate and the ceiling", async () => {
    const res = await quote({ spec: { gpu: "h100-vast:8" }, policy: { ttl: "2h" } });
    expect(res.status, await res.clone().text()).toBe(201);
    const q = await json(res);
    // 10 GB down and 2 GB up an hour: $0.04 + $0.04.
    expect(q.estimate.parts).toEqual({ compute_usd: q.hourly_usd, bandwidth_usd: 0.08 });
    expect(q.estimate.hourly_usd).toBeCloseTo(q.hourly_usd + 0.08, 4);
    expect(q.ceiling_parts.bandwidth_usd).toBeCloseTo(0.16, 4);
    // A stopped instance's disk bills `storage_cost` ($/GB/month) on the 50 GB lessor gives it, for the default stopped_ttl (24 h).
    expect(q.offer.stopped_hourly_usd).toBeCloseTo((STORAGE_COST * 50) / 730, 4);
    expect(q.ceiling_parts.stopped_disk_usd).toBeCloseTo(q.offer.stopped_hourly_usd * 24, 6);
    // Vast bills by the second: under a ttl each of two replaced hosts may round up by one.
    expect(q.ceiling_parts.retries_usd).toBeCloseTo((2 * q.hourly_usd) / 3600, 4);
    expect(q.ceiling_parts.retries_usd).toBeGreaterThan(0);
    // A release at the ttl may hold the machine 5 minutes more for the outputs: compute and bandwidth.
    expect(q.ceiling_parts.outputs_wait_usd).toBeCloseTo((q.hourly_usd + 0.08) / 12, 4);
    expect(q.ceiling_usd).toBeCloseTo((q.hourly_usd + 0.08) * (2 + 1 / 12) + q.ceiling_parts.stopped_disk_usd + q.ceiling_parts.retries_usd + q.ceiling_parts.drift_usd, 3);
  });

  it.skipIf(!served)("never quotes a host whose contract ends before the lease's ttl: no_capacity names host_duration", async () => {
    expect((await quote({ spec: { gpu: "h100-vast:8" }, policy: { ttl: "20h" } })).status).toBe(201);
    const e = await expectError(await quote({ spec: { gpu: "h100-vast:8" }, policy: { ttl: "2d" } }), 409, "no_capacity");
    expect(e.details.constraint).toBe("host_duration");
    // No ttl: the max_lifetime counts.
    const job = await expectError(await quote({ spec: { gpu: "h100-vast:8" }, kind: "job", policy: { max_lifetime: "3d" } }), 409, "no_capacity");
    expect(job.details.constraint).toBe("host_duration");
  });

  it.skipIf(!served)("filters on the reliability and internet speeds an ask states; an ask that states none never passes", async () => {
    const ids = async (query: string) =>
      // On-demand (each ask is listed by bid too, as a spot offer: docs/providers.md "Spot").
      (await json(await call("GET", `/v1/catalog/offers?provider=vast&gpu=l40s&spot=false&limit=50&${query}`, { key }))).data.map((o: any) => o.provider_offer_id).sort();
    const page = await json(await call("GET", "/v1/catalog/offers?provider=vast&gpu=l40s&limit=50", { key }));
    expect(page.data.find((o: any) => o.provider_offer_id === "3001")).toMatchObject({ reliability: 0.995, inet_down_mbps: 900, inet_up_mbps: 300 });
    expect(page.data.find((o: any) => o.provider_offer_id === "3003")).toMatchObject({ reliability: 0.97, inet_down_mbps: null, inet_up_mbps: null });
    expect(await ids("min_reliability=0.991")).toEqual(["3001", "3002", "3004"]);
    expect(await ids("min_reliability=0.9911")).toEqual(["3001", "3004"]);
    expect(await ids("min_inet_down_mbps=200")).toEqual(["3001", "3002"]);
    expect(await ids("min_inet_down_mbps=200.1")).toEqual(["3001"]);
    expect(await ids("min_inet_up_mbps=0")).toEqual(["3001", "3002"]);
    expect(await ids("min_cuda=12.8")).toEqual(["3001", "3002", "3003", "3004"]);
    expect(await ids("min_cuda=12.9")).toEqual([]);
    const q = await json(await quote({ spec: { gpu: "l40s-vast:1", min_inet_up_mbps: 300, min_reliability: 0.99 } }));
    expect(q.offer.provider_offer_id).toBe("3001");
    expect(q.fallbacks).toEqual([]);
    const e = await expectError(await quote({ spec: { gpu: "l40s-vast:1", min_inet_up_mbps: 301 } }), 409, "no_capacity");
    expect(e.details.constraint).toBe("min_inet_up_mbps");
  });

  it.skipIf(!served)("a Vast ask sold by bid is a spot offer with its on-demand price beside it; a spot quote rents it with a bid", async () => {
    const page = await json(await call("GET", "/v1/catalog/offers?provider=vast&gpu=l40s&spot=true&limit=50", { key }));
    const bid = page.data.find((o: any) => o.provider_offer_id === "bid-3001");
    const onDemand = (await json(await call("GET", "/v1/catalog/offers?provider=vast&gpu=l40s&spot=false&limit=50", { key }))).data.find((o: any) => o.provider_offer_id === "3001");
    expect(bid).toMatchObject({ id: "vast:bid-3001", spot: true, on_demand_hourly_usd: onDemand.hourly_usd, host_id: onDemand.host_id });
    expect(bid.hourly_usd).toBeLessThan(onDemand.hourly_usd);
    expect(onDemand.on_demand_hourly_usd).toBeNull();
    const q = await json(await quote({ spec: { gpu: "l40s-vast:1", spot: true } }));
    expect(q.offer).toMatchObject({ spot: true });
    expect(q.offer.on_demand_hourly_usd).toBeGreaterThan(q.offer.hourly_usd);
  });

  it.skipIf(!served)("a Vast ask states no startup time: listed as null, never passed by max_startup_s, and no_capacity says none states one", async () => {
    const page = await json(await call("GET", "/v1/catalog/offers?provider=vast&gpu=l40s&limit=50", { key }));
    expect(page.data.length).toBeGreaterThan(0);
    for (const o of page.data) expect(o.startup_s).toBeNull();
    expect((await json(await call("GET", "/v1/catalog/offers?provider=vast&gpu=l40s&max_startup_s=86400", { key }))).data).toEqual([]);
    const e = await expectError(await quote({ spec: { gpu: "l40s-vast:1", max_startup_s: 86_400 } }), 409, "no_capacity");
    expect(e.details).toMatchObject({ constraint: "max_startup_s", stating_startup: 0, fastest_startup_s: null });
    expect(e.message).toContain("none states a startup time");
  });

  it.skipIf(!served)("never places an image on a host whose CUDA is older than it needs", async () => {
    expect((await quote({ spec: { gpu: "h100-vast:8", min_cuda: 12.8 } })).status).toBe(201);
    const e = await expectError(await quote({ spec: { gpu: "h100-vast:8", min_cuda: 13 } }), 409, "no_capacity");
    expect(e.details.constraint).toBe("cuda");
  });
});
