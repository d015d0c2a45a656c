/**
 * Hosts that failed one of an org's leases are left out of the org's selections for
 * LESSOR_BAD_HOST_TTL (docs/design.md "Placement"): quotes and leases skip them, the catalog marks
 * their offers, `no_capacity` says when they removed the last candidates, and another org is not
 * touched. The lease's runner records them when it replaces a failed host, in D1 and with the org's
 * object, which refuses the org's quotes on them.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { recordBadHost } from "../../src/catalog/bad-hosts";
import { database } from "../../src/db";
import { runRetention } from "../../src/db/retention";
import type { BadHostReason } from "../../src/lease/bad-host";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, waitForState } from "./lease-helpers";

const H = 3_600_000;
const db = () => database(env.DB);

async function quote(key: string, spec: object) {
  return call("POST", "/v1/quotes", { key, body: { spec } });
}

async function offers(key: string, query: string): Promise<any[]> {
  const res = await call("GET", `/v1/catalog/offers?limit=200&${query}`, { key });
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

async function markBad(org: TestOrg, o: { provider: string; host_id: string }, until: number, reason: BadHostReason = "boot_timeout") {
  await recordBadHost(db(), { org_id: org.id, provider: o.provider, host_id: o.host_id, reason, lease_id: "ls_test", until }, Date.now());
}

describe("bad hosts", () => {
  let org: TestOrg;
  let key: string;
  let other: TestOrg;
  let otherKey: string;

  beforeAll(async () => {
    org = await createOrg();
    key = (await createKey(org, "write")).secret;
    other = await createOrg();
    otherKey = (await createKey(other, "write")).secret;
    await refreshCatalog();
  });

  it("quotes and leases skip the org's bad hosts; when they removed the last candidates, no_capacity counts them", async () => {
    const spec = { gpu: "h200:1" };
    const before = await json(await quote(key, spec));
    const fitting = before.candidates as number;
    expect(fitting).toBeGreaterThan(1);
    // The chosen offer's host goes bad: the next quote picks another host.
    await markBad(org, before.offer, Date.now() + H);
    const next = await json(await quote(key, spec));
    expect(next.offer.host_id).not.toBe(before.offer.host_id);
    expect(next.candidates).toBe(fitting - (await offers(key, "gpu=h200&spot=false")).filter((o) => o.gpu_count === 1 && o.host_id === before.offer.host_id).length);
    // Every fitting host bad: no_capacity, naming the constraint and how many it removed.
    for (const o of (await offers(key, "gpu=h200&spot=false")).filter((o) => o.gpu_count === 1)) await markBad(org, o, Date.now() + H);
    const e = await expectError(await quote(key, spec), 409, "no_capacity");
    expect(e.details).toMatchObject({ constraint: "bad_hosts", candidates_before: fitting, excluded_bad_hosts: fitting });
    const created = await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec } }), 409, "no_capacity");
    expect(created.details).toMatchObject({ constraint: "bad_hosts", excluded_bad_hosts: fitting });
    // A quote answered before its hosts went bad no longer leases onto them.
    const fromQuote = await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", quote_id: next.id } }), 409, "no_capacity");
    expect(fromQuote.details).toMatchObject({ constraint: "bad_hosts", excluded_bad_hosts: 1 + next.fallbacks.length });
    // Another org's selections are not touched.
    expect((await quote(otherKey, spec)).status).toBe(201);
    // Another constraint that removes the candidates first is still the one named.
    const priced = await expectError(await quote(key, { ...spec, max_hourly_usd: 0.01 }), 409, "no_capacity");
    expect(priced.details.constraint).toBe("max_hourly_usd");
    expect(priced.details.excluded_bad_hosts).toBeUndefined();
  });

  it("GET /v1/catalog/offers marks a bad host's offers for its org only, while in force", async () => {
    const [bad, expired, fine] = (await offers(key, "gpu=l40s&spot=false")).filter((o, i, all) => all.findIndex((x) => x.host_id === o.host_id) === i);
    const until = Date.now() + H;
    await markBad(org, bad, until, "provider_lost");
    await markBad(org, expired, Date.now() - 1);
    const listed = await offers(key, "gpu=l40s&spot=false");
    for (const o of listed.filter((o) => o.provider === bad.provider && o.host_id === bad.host_id)) {
      expect(o.bad_host).toEqual({ reason: "provider_lost", until: new Date(until).toISOString() });
    }
    for (const o of listed.filter((o) => o.host_id === expired.host_id || o.host_id === fine.host_id)) expect(o.bad_host).toBeNull();
    for (const o of await offers(otherKey, "gpu=l40s&spot=false")) expect(o.bad_host).toBeNull();
  });

  it("a host recorded again keeps the later time and takes the newer reason", async () => {
    const [o] = await offers(key, "gpu=a10&spot=false");
    const later = Date.now() + 2 * H;
    await markBad(org, o, later, "boot_timeout");
    await markBad(org, o, Date.now() + H, "host_failed");
    const marked = (await offers(key, "gpu=a10&spot=false")).find((x) => x.id === o.id);
    expect(marked.bad_host).toEqual({ reason: "host_failed", until: new Date(later).toISOString() });
  });

  it("retention deletes bad hosts whose time has run out, and keeps those in force", async () => {
    const r = await createOrg();
    const now = Date.now();
    await markBad(r, { provider: "sim", host_id: "gone" }, now);
    await markBad(r, { provider: "sim", host_id: "kept" }, now + 1);
    const report = await runRetention(db(), now);
    expect(report.bad_hosts_deleted).toBeGreaterThanOrEqual(1);
    const left = await db().selectFrom("bad_hosts").select("host_id").where("org_id", "=", r.id).execute();
    expect(left.map((x) => x.host_id)).toEqual(["kept"]);
  });
});

describe("the lease's runner records a failed host for its org", () => {
  it("a machine that fails its boot marks its host; the org's catalog shows it", async () => {
    await fastSim({ boot_failure_rate: 1 });
    const org = await createOrg();
    const key = (await createKey(org, "write")).secret;
    await refreshCatalog();
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l4:1" }, policy: { host_attempts: 1 } });
    await waitForState(key, lease.id, "released", 20_000);
    await fastSim();
    const rows = await db().selectFrom("bad_hosts").selectAll().where("org_id", "=", org.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ provider: lease.offer.provider, host_id: lease.offer.host_id, reason: "host_failed", lease_id: lease.id });
    expect(rows[0]!.until - rows[0]!.created_at).toBe(24 * H);
    const listed = (await offers(key, "gpu=l4")).find((o) => o.id === lease.offer.id);
    expect(listed.bad_host.reason).toBe("host_failed");
    // And told to the org's object, which refuses the org's quotes on it (src/catalog/quote-store.ts).
    const told = await runInDurableObject(env.ORG_EVENTS.get(env.ORG_EVENTS.idFromName(org.id)), (_o, state) => state.storage.sql.exec("SELECT host, reason, until FROM quote_bad_hosts").toArray());
    expect(told).toEqual([{ host: `${lease.offer.provider}/${lease.offer.host_id}`, reason: "host_failed", until: rows[0]!.until }]);
  });
});
