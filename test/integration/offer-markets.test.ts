/**
 * The offer market does not hang on one tenant's key (docs/design.md "Markets"): the refresh tries every
 * usable key of a provider, most recently verified first, until one reads the market; a market not
 * read for 10 minutes has its offers shown stale and never quoted; the catalog and the providers
 * list say when each provider was last read.
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { OFFER_MAX_AGE_MS } from "../../src/catalog/offer";
import { database } from "../../src/db";
import { recordVerification, storeProviderKey } from "../../src/providers/credentials";
import { STUB_API_KEYS } from "../support/stub-clouds-admin";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";

let org: TestOrg;
let writeKey: string;

beforeAll(async () => {
  org = await createOrg();
  writeKey = (await createKey(org, "write")).secret;
});

afterAll(async () => {
  await refreshCatalog();
});

const quote = (spec: Record<string, unknown>) => call("POST", "/v1/quotes", { key: writeKey, body: { spec } });

async function providers(key = writeKey): Promise<Record<string, any>> {
  const res = await call("GET", "/v1/providers", { key });
  expect(res.status).toBe(200);
  return Object.fromEntries((await json(res)).data.map((p: any) => [p.name, p]));
}

describe("stale markets", () => {
  it("a market not read for 10 minutes: its offers are listed stale, never quoted, and no_capacity says why", async () => {
    const readAt = Date.now() - OFFER_MAX_AGE_MS - 60_000;
    await refreshCatalog(readAt);

    const listed = await json(await call("GET", "/v1/catalog/offers?provider=sim&gpu=l4&limit=5", { key: writeKey }));
    expect(listed.data.length).toBeGreaterThan(0);
    for (const o of listed.data) expect(o).toMatchObject({ provider: "sim", refreshed_at: new Date(readAt).toISOString(), stale: true });
    expect((await providers()).sim.market).toMatchObject({ refreshed_at: new Date(readAt).toISOString(), stale: true, error: null });

    const refused = await expectError(await quote({ gpu: "l4:1" }), 409, "no_capacity");
    expect(refused.details).toMatchObject({
      constraint: "offer_age",
      stale: true,
      max_offer_age_s: OFFER_MAX_AGE_MS / 1000,
      stale_providers: [{ provider: "sim", refreshed_at: new Date(readAt).toISOString() }],
    });
    expect(refused.details.candidates_before).toBeGreaterThan(0);
    expect(refused.message).toContain("stale");
    // A lease from a spec chooses its offer the same way.
    const lease = await expectError(await call("POST", "/v1/leases", { key: writeKey, body: { kind: "scratch", spec: { gpu: "l4:1" } } }), 409, "no_capacity");
    expect(lease.details).toMatchObject({ constraint: "offer_age", stale: true });

    // Read again: fresh, and quoted.
    await refreshCatalog();
    const fresh = await json(await call("GET", "/v1/catalog/offers?provider=sim&gpu=l4&limit=5", { key: writeKey }));
    for (const o of fresh.data) expect(o.stale).toBe(false);
    expect((await providers()).sim.market.stale).toBe(false);
    const res = await quote({ gpu: "l4:1" });
    expect(res.status, await res.clone().text()).toBe(201);
  });
});

const stubs = inject("stubClouds");

describe.skipIf(!stubs?.providers.includes("runpod"))("a provider's market read with every org's key", () => {
  it("one org's dead key, verified most recently, does not stop the market: the next key reads it", async () => {
    const db = database(env.DB);
    // This org's working key, verified now.
    const put = await call("PUT", "/v1/providers/runpod", { key: org.adminKey, body: { api_key: STUB_API_KEYS.runpod } });
    expect(put.status, await put.clone().text()).toBe(200);
    // Another org's key, verified later than it, that the provider no longer accepts (revoked since).
    const other = await createOrg();
    await storeProviderKey(db, env, other.id, "runpod", { api_key: "rp_revoked_since_0000", options: {} }, Date.now());
    await recordVerification(db, other.id, "runpod", true, null, Date.now() + 60_000);
    await env.DB.prepare("DELETE FROM offers WHERE provider = 'runpod'").run();

    const reports = await refreshCatalog();
    expect(reports.find((r) => r.provider === "runpod")).toMatchObject({ ok: true, attempts: 2 });
    const runpod = await json(await call("GET", "/v1/catalog/offers?provider=runpod&limit=5", { key: writeKey }));
    expect(runpod.data.length).toBeGreaterThan(0);
    expect(runpod.data[0].stale).toBe(false);
    const res = await quote({ gpu: "l40s:1", providers: ["runpod"] });
    expect(res.status, await res.clone().text()).toBe(201);

    // A quote never picks a stale offer, even the cheapest: with the sim's market stale, a
    // spec both can meet is quoted from runpod.
    const old = Date.now() - OFFER_MAX_AGE_MS - 60_000;
    await env.DB.batch([
      env.DB.prepare("UPDATE offers SET refreshed_at = ? WHERE provider = 'sim'").bind(old),
      env.DB.prepare("UPDATE offer_markets SET refreshed_at = ? WHERE provider = 'sim'").bind(old),
      env.DB.prepare("UPDATE catalog SET generation = ?").bind(crypto.randomUUID()),
    ]);
    const both = await json(await quote({ gpu: "l40s:1", providers: ["sim", "runpod"] }));
    expect(both.offer.provider).toBe("runpod");
    for (const f of both.fallbacks) expect(f.provider).toBe("runpod");

    // With only the dead key left, the market cannot be read: recorded, by kind, never in the provider's words.
    await env.DB.prepare("DELETE FROM provider_keys WHERE org_id = ?").bind(org.id).run();
    const failed = await refreshCatalog();
    expect(failed.find((r) => r.provider === "runpod")).toMatchObject({ ok: false, attempts: 1 });
    const market = (await providers(other.adminKey)).runpod.market;
    expect(market.error).toBe("auth (1 key tried)");
    expect(market.stale).toBe(false);
    expect(Date.parse(market.attempted_at)).toBeGreaterThan(Date.parse(market.refreshed_at) - 1);
  });
});
