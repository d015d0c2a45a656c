/**
 * What one request of the hot read routes costs in round trips, counted by the meter
 * (src/metering.ts): D1 statements (a batch would be one) and Durable Object calls, the
 * authentication's share included. The bench's throughput of these routes follows these counts
 * (docs/performance.md, "Where the time of an API request goes"), so one more statement or call fails here.
 *
 * The meter counts the whole isolate, and a lease's object may still be working in the
 * background, which only adds: each route is measured a few times and its cheapest run counts.
 * That run is also one where the org's request budget was spent from units this isolate already
 * held (src/auth/admission.ts `takeOrgBudget`: one call to the org's object in ten requests).
 */
import { orgEventsStub } from "../../src/events/forward";
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { tellBadHost } from "../../src/catalog/bad-hosts";
import { offerSnapshots } from "../../src/catalog/offers-repo";
import { database } from "../../src/db";
import { encodeCursor } from "../../src/pagination";
import { storedView, type LeaseView } from "../../src/lease/view";
import { BOOTSTRAP, call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, waitForState } from "./lease-helpers";

const RUNS = 5;

interface Cost {
  d1: number;
  objects: number;
}

async function meter(): Promise<{ d1_queries: number; do_requests: number }> {
  const res = await call("GET", "/v1/meter", { key: BOOTSTRAP });
  expect(res.status).toBe(200);
  return json(res);
}

/** The cheapest of RUNS runs of `send`, less what reading the meter itself costs. */
async function cost(send: () => Promise<Response>, status = 200): Promise<Cost> {
  const runs: Cost[] = [];
  for (let i = 0; i < RUNS; i++) {
    const before = await meter();
    expect((await send()).status).toBe(status);
    const after = await meter();
    runs.push({ d1: after.d1_queries - before.d1_queries, objects: after.do_requests - before.do_requests });
  }
  const cheapest = runs.reduce((a, b) => (b.d1 + b.objects < a.d1 + a.objects ? b : a));
  // The second meter read's own call: the bootstrap token's budget (functions/middleware.ts).
  return { d1: cheapest.d1, objects: cheapest.objects - 1 };
}

describe("round trips per request", () => {
  let org: TestOrg;
  let key: string;
  let leaseId: string;

  beforeAll(async () => {
    org = await createOrg();
    key = (await createKey(org, "write")).secret;
    await refreshCatalog();
    await fastSim();
    // One lease in the org, as in the bench; released, so its object has little left to do.
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] } });
    leaseId = lease.id;
    await waitForState(key, lease.id, "ready");
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
  });

  it("reading the meter costs one object call and no D1 statement, which `cost` takes off", async () => {
    expect(await cost(async () => new Response(null))).toEqual({ d1: 0, objects: 0 });
  });

  it("GET /v1/org: the key's object, and no D1 statement (the org's identity is remembered)", async () => {
    expect(await cost(() => call("GET", "/v1/org", { key }))).toEqual({ d1: 0, objects: 1 });
  });

  it("GET /v1/leases: the key's object and the org's, no D1 statement (the org's lease index)", async () => {
    expect(await cost(() => call("GET", "/v1/leases", { key }))).toEqual({ d1: 0, objects: 2 });
  });

  it("GET /v1/leases answers the org index's bodies byte for byte as reading and writing each again would", async () => {
    const res = await call("GET", "/v1/leases?limit=1", { key });
    expect(res.headers.get("content-type")).toBe("application/json");
    const rows = { results: await orgEventsStub(env, org.id).listLeases(org.id, { before: null, limit: 1_000 }) };
    expect(rows.results.length).toBeGreaterThanOrEqual(1);
    const data = rows.results.slice(0, 1).map((r) => storedView(JSON.parse(r.body) as LeaseView));
    const next = rows.results.length > 1 ? encodeCursor({ k: rows.results[0]!.id, id: rows.results[0]!.id }) : null;
    expect(await res.text()).toBe(JSON.stringify({ data, next_cursor: next }));
  });

  it("GET /v1/leases/:id: the key's object and the lease's, no D1 statement", async () => {
    expect(await cost(() => call("GET", `/v1/leases/${leaseId}`, { key }))).toEqual({ d1: 0, objects: 2 });
  });

  it("POST /v1/quotes: the key's object and the org's, and no D1 statement (offers, providers and bad hosts remembered)", async () => {
    // The first quote of an isolate reads its snapshot; the runs after it are answered from memory.
    expect((await call("POST", "/v1/quotes", { key, body: { spec: { gpu: "h100:8" } } })).status).toBe(201);
    expect(await cost(() => call("POST", "/v1/quotes", { key, body: { spec: { gpu: "h100:8" } } }), 201)).toEqual({ d1: 0, objects: 2 });
    expect(await cost(() => call("POST", "/v1/quotes", { key, body: { spec: { min_vram_gb: 80, min_gpus: 2 } } }), 201)).toEqual({ d1: 0, objects: 2 });
  });

  it("a host marked bad behind this isolate's back is still never quoted: the org's object refuses the quote, and the next choice leaves it out", async () => {
    const spec = { gpu: "h100:8" };
    const first = await json(await call("POST", "/v1/quotes", { key, body: { spec } }));
    const chosen = first.offer as { provider: string; host_id: string };
    // As another isolate's lease runner does: D1 first, then the org's object. This isolate still remembers no bad host.
    const mark = { org_id: org.id, provider: chosen.provider, host_id: chosen.host_id, reason: "host_failed" as const, lease_id: "ls_test", until: Date.now() + 3_600_000 };
    await env.DB.prepare(`INSERT INTO bad_hosts (org_id, provider, host_id, reason, lease_id, until, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .bind(mark.org_id, mark.provider, mark.host_id, mark.reason, mark.lease_id, mark.until, Date.now())
      .run();
    await tellBadHost(env, mark);
    // The snapshot's generation just confirmed, so that no background confirmation (src/catalog/offers-repo.ts) falls in the count.
    await offerSnapshots.confirm(database(env.DB), Date.now());
    const before = await meter();
    const res = await call("POST", "/v1/quotes", { key, body: { spec } });
    const after = await meter();
    expect(res.status).toBe(201);
    const next = await json(res);
    for (const o of [next.offer, ...next.fallbacks]) expect(`${o.provider}/${o.host_id}`).not.toBe(`${chosen.provider}/${chosen.host_id}`);
    // The refused store and the one that lands, with no D1 statement (the meter read's own call taken off).
    expect(after.do_requests - before.do_requests - 1).toBeGreaterThanOrEqual(3);
    expect(after.d1_queries - before.d1_queries).toBe(0);
    // And the next quote is the two calls again.
    expect(await cost(() => call("POST", "/v1/quotes", { key, body: { spec } }), 201)).toEqual({ d1: 0, objects: 2 });
    await env.DB.prepare(`DELETE FROM bad_hosts WHERE org_id = ?`).bind(org.id).run();
  });
});
