/**
 * Money: a lease's worst case is admitted like a create by every action that raises it
 * (1), a fallback on another provider is rented from that provider (2), a stopped lease whose
 * machine runs again is stopped again (3), and a 404 for a machine lessor created is not taken for
 * "gone" without the account that created it (4, second half).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import type { Offer } from "../../src/catalog/offer";
import { rowToOffer } from "../../src/catalog/offers-repo";
import { database } from "../../src/db";
import type { LeaseObject } from "../../src/lease/object";
import { POLICY_DEFAULTS } from "../../src/lease/policy";
import type { LeaseRecord } from "../../src/lease/state";
import { runReconciler } from "../../src/lease/reaper";
import { STUB_API_KEYS, stubCloudAdmin } from "../support/stub-clouds-admin";
import { BOOTSTRAP, call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, fastSim, getLease, leaseSuite, machinesOf, sim, waitFor, waitForState } from "./lease-helpers";

const H = 3_600_000;
const stubOf = (id: string) => env.LEASE.get(env.LEASE.idFromName(id));

/** Rewrites the lease's stored record (what a long time passing, or another key, would have left). */
async function patchRecord(id: string, patch: (l: LeaseRecord) => LeaseRecord) {
  await runInDurableObject(stubOf(id) as unknown as DurableObjectStub<LeaseObject>, async (_instance, state) => {
    const row = state.storage.sql.exec<{ record: string }>(`SELECT record FROM lease`).toArray()[0]!;
    state.storage.sql.exec(`UPDATE lease SET record = ?`, JSON.stringify(patch(JSON.parse(row.record) as LeaseRecord)));
  });
}

async function simOffers(): Promise<Offer[]> {
  const rows = await database(env.DB).selectFrom("offers").selectAll().where("provider", "=", "sim").where("gpu_class", "=", "l4").orderBy("hourly_usd").execute();
  return rows.map(rowToOffer);
}

/** A lease created straight on its object with the offers given (the route's admission reserved nothing for it). */
async function leaseWith(org: TestOrg, offers: Offer[], policy: Partial<typeof POLICY_DEFAULTS.scratch> = {}) {
  const id = `ls_${crypto.randomUUID().replace(/-/g, "").slice(0, 26)}`;
  await stubOf(id).create({
    id,
    org_id: org.id,
    kind: "scratch",
    policy: { ...POLICY_DEFAULTS.scratch, ...policy },
    spec: null,
    quote_id: null,
    offers,
    image: null,
    cmd: null,
    warnings: [],
    reserved: null,
    now: Date.now(),
  });
  return id;
}

describe("Money 1: every action that can raise a lease's worst case is admitted like a create", () => {
  let org: TestOrg;
  let writer: string;

  beforeAll(async () => {
    await refreshCatalog();
  });
  beforeEach(async () => {
    await fastSim();
    org = await createOrg();
    writer = (await createKey(org, "write")).secret;
  });

  it("a write-scope key cannot push the org past its monthly cap with repeated extend", async () => {
    const lease = await createLease(writer, { kind: "scratch", spec: { gpu: "l4:1", providers: ["sim"] }, policy: { ttl: "1h", max_lifetime: null, stopped_ttl: "1m" } });
    const ready = await waitForState(writer, lease.id, "ready");
    // Room for three hours of this lease, no more (its stopped disk, a minute of it, aside).
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { monthly_usd: Math.round(ready.hourly_usd * 3 * 1e6) / 1e6 } });
    const ok = await call("POST", `/v1/leases/${lease.id}/extend`, { key: writer, body: { by: "1h" } });
    expect(ok.status).toBe(200);
    const before = await getLease(writer, lease.id);
    const e = await expectError(await call("POST", `/v1/leases/${lease.id}/extend`, { key: writer, body: { by: "366d" } }), 402, "over_budget");
    expect(e.details).toMatchObject({ cap: "monthly", limit_usd: expect.any(Number), committed_usd: 0 });
    expect(e.details.requested_usd).toBeGreaterThan(ready.hourly_usd * 3);
    // Refused: nothing changed.
    const after = await getLease(writer, lease.id);
    expect(after.ttl_expires_at).toBe(before.ttl_expires_at);
    expect((await events(writer, lease.id)).filter((x) => x.type === "extended")).toHaveLength(1);
    // The budget shows what the lease holds: its two hours (and the 5 minutes its ttl's release
    // may wait for the outputs), not the refused year.
    const budget = await json(await call("GET", "/v1/budget", { key: org.adminKey }));
    expect(budget.month_committed_usd).toBeLessThanOrEqual(ready.hourly_usd * (2 + 5 / 60) + 0.01);
    await call("POST", `/v1/leases/${lease.id}/end`, { key: writer });
  });

  it("a write-scope key cannot push the org past its monthly cap with stop/start on a lease without a ttl", async () => {
    const lease = await createLease(writer, { kind: "job", cmd: "hang", spec: { gpu: "l4:1", providers: ["sim"] }, policy: { ttl: null, max_lifetime: "1h", stopped_ttl: "10m" } });
    const ready = await waitForState(writer, lease.id, "ready");
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { monthly_usd: Math.round(ready.hourly_usd * 1.5 * 1e6) / 1e6 } });
    expect((await call("POST", `/v1/leases/${lease.id}/stop`, { key: writer })).status).toBe(200);
    await waitForState(writer, lease.id, "stopped");
    // A session that ran its full hour (as if an hour had passed): another session would pass the cap.
    const rate = Math.round(ready.hourly_usd * 1e6);
    await patchRecord(lease.id, (l) => ({ ...l, billing: { ...l.billing, segments: [{ from: Date.now() - H - 1000, to: Date.now() - 1000, kind: "running", rate }] } }));
    const e = await expectError(await call("POST", `/v1/leases/${lease.id}/start`, { key: writer }), 402, "over_budget");
    expect(e.details).toMatchObject({ cap: "monthly" });
    expect(e.details.requested_usd).toBeGreaterThan(ready.hourly_usd * 1.9);
    expect((await getLease(writer, lease.id)).state).toBe("stopped");
    // Within the cap, the same start is admitted (and re-reserved).
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { monthly_usd: Math.round(ready.hourly_usd * 2.5 * 1e6) / 1e6 } });
    expect((await call("POST", `/v1/leases/${lease.id}/start`, { key: writer })).status).toBe(200);
    const started = (await events(writer, lease.id)).find((x) => x.type === "start_requested");
    expect(started.detail.reserved_usd).toBeGreaterThan(ready.hourly_usd * 1.9);
    await call("POST", `/v1/leases/${lease.id}/end`, { key: writer });
  });

  it("a pricier fallback beyond the cap is not rented: the lease is released with budget_exceeded", async () => {
    const offers = await simOffers();
    const cheap = offers[0]!;
    const pricier = offers.find((o) => o.host_id !== cheap.host_id && o.hourly_usd > cheap.hourly_usd * 1.3)!;
    expect(pricier).toBeDefined();
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { concurrent_hourly_usd: Math.round(cheap.hourly_usd * 1.2 * 1e6) / 1e6 } });
    await sim().setFaults({ boot_failure_rate: 1 });
    const id = await leaseWith(org, [cheap, pricier], { ttl: H, max_lifetime: null, host_attempts: 3 });
    const released = await waitForState(writer, id, "released", 20_000);
    expect(released.release_reason).toBe("budget_exceeded");
    const machines = await machinesOf(id);
    expect(machines.map((m) => m.offer_id)).toEqual([cheap.provider_offer_id]);
    const refused = (await events(writer, id)).find((x) => x.type === "release_requested");
    expect(refused).toMatchObject({ reason: "budget_exceeded", detail: { offer: pricier.id, cap: "concurrent_hourly" } });
  });

  it("a replacement host within the reserved ceiling is rented without asking again", async () => {
    const offers = await simOffers();
    const first = offers[0]!;
    const same = offers.find((o) => o.host_id !== first.host_id && o.hourly_usd <= first.hourly_usd)!;
    if (!same) return; // the market has no second host at that price
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { concurrent_hourly_usd: Math.round(first.hourly_usd * 1.2 * 1e6) / 1e6 } });
    await sim().setFaults({ boot_failure_rate: 1 });
    const id = await leaseWith(org, [first, same], { ttl: H, max_lifetime: null, host_attempts: 2 });
    await waitFor("the replacement", async () => (await machinesOf(id)).length === 2, 20_000);
    await call("POST", `/v1/leases/${id}/end`, { key: writer });
  });
});

describe("Money 5: what is rented never costs more than what was reserved", () => {
  let org: TestOrg;
  let writer: string;

  beforeAll(async () => {
    await refreshCatalog();
  });
  beforeEach(async () => {
    await fastSim();
    org = await createOrg();
    writer = (await createKey(org, "write")).secret;
  });

  it("a machine the provider rents above the price reserved re-reserves before it goes on, or is released budget_exceeded", async () => {
    const real = (await simOffers())[0]!;
    // The offer as the cache read it before the market moved: half the price the sim rents it at.
    const stale = { ...real, hourly_usd: real.hourly_usd / 2 };
    const cap = (usd: number) => call("PUT", "/v1/budget", { key: org.adminKey, body: { concurrent_hourly_usd: Math.round(usd * 1e6) / 1e6 } });
    // Room for the price reserved, not for the price rented.
    await cap(real.hourly_usd * 0.75);
    const refused = await leaseWith(org, [stale], { ttl: H, max_lifetime: null });
    const released = await waitForState(writer, refused, "released", 20_000);
    expect(released.release_reason).toBe("budget_exceeded");
    expect(released.ready_at).toBeNull();
    const requested = (await events(writer, refused)).find((e) => e.type === "release_requested");
    expect(requested.detail).toMatchObject({ cap: "concurrent_hourly", hourly_usd: real.hourly_usd });
    // Room for it: re-reserved at the price it rents at, then ready.
    await cap(real.hourly_usd * 2);
    const id = await leaseWith(org, [stale], { ttl: H, max_lifetime: null });
    await waitForState(writer, id, "ready", 20_000);
    const reserved = (await events(writer, id)).filter((e) => e.type === "budget_reserved");
    expect(reserved.at(-1).detail).toMatchObject({ hourly_usd: real.hourly_usd });
    const row = await env.DB.prepare("SELECT MAX(hourly_micro_usd) AS hourly FROM budget_reservations WHERE lease_id = ?").bind(id).first<{ hourly: number }>();
    expect(row!.hourly).toBeGreaterThanOrEqual(Math.round(real.hourly_usd * 1e6));
    await call("POST", `/v1/leases/${id}/end`, { key: writer });
  });

  it("a lease made from a quote reserves the price drift the quote allows", async () => {
    const body = { spec: { gpu: "l4:1", providers: ["sim"] }, policy: { ttl: "1h", max_lifetime: null, stopped_ttl: "1m" } };
    const quote = await json(await call("POST", "/v1/quotes", { key: writer, body }));
    // The drift is on the hour and on the 5 minutes a ttl release may wait for the outputs.
    expect(quote.ceiling_parts.outputs_wait_usd).toBeCloseTo(quote.hourly_usd / 12, 4);
    expect(quote.ceiling_parts.drift_usd).toBeCloseTo(quote.hourly_usd * 0.05 * (1 + 1 / 12), 4);
    const p = quote.ceiling_parts;
    expect(quote.ceiling_usd).toBeCloseTo(p.compute_usd + p.bandwidth_usd + p.outputs_wait_usd + p.stopped_disk_usd + p.retries_usd + p.drift_usd, 3);
    // Room for the quote's ceiling without its drift, not with it.
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { monthly_usd: Math.round((quote.ceiling_usd - quote.ceiling_parts.drift_usd / 2) * 1e6) / 1e6 } });
    // (A quote keeps only its ttl and max_lifetime: the lease names its stopped_ttl again.)
    const lease = { kind: "scratch", quote_id: quote.id, policy: { stopped_ttl: "1m" } };
    const e = await expectError(await call("POST", "/v1/leases", { key: writer, body: lease }), 402, "over_budget");
    expect(e.details.requested_usd).toBeCloseTo(quote.ceiling_usd, 3);
    // With room for the drift, the lease holds it: the rate at the most it may be rented for.
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { monthly_usd: Math.round((quote.ceiling_usd + 0.01) * 1e6) / 1e6 } });
    const made = await createLease(writer, lease);
    const row = await env.DB.prepare("SELECT SUM(ceiling_micro_usd) AS total, MAX(hourly_micro_usd) AS hourly FROM budget_reservations WHERE lease_id = ?").bind(made.id).first<{ total: number; hourly: number }>();
    expect(row!.total / 1e6).toBeCloseTo(quote.ceiling_usd, 3);
    expect(row!.hourly).toBe(Math.round(quote.hourly_usd * 1.05 * 1e6));
    await call("POST", `/v1/leases/${made.id}/end`, { key: writer });
  });
});

describe("Money 2: a fallback from another provider is rented from that provider", () => {
  const stubs = inject("stubClouds");
  const served = stubs?.providers.includes("runpod") ?? false;

  it.skipIf(!served)("the lease follows the offer it rents: provider, account, capabilities, price; its events say so", async () => {
    const runpod = stubCloudAdmin(stubs!.url, "runpod");
    await runpod.reset();
    await runpod.setFaults({ provision_delay_ms: 50, boot_delay_ms: 100 });
    await fastSim({ no_capacity_rate: 1 });
    const org = await createOrg();
    const writer = (await createKey(org, "write")).secret;
    const put = await call("PUT", "/v1/providers/runpod", { key: org.adminKey, body: { api_key: STUB_API_KEYS.runpod } });
    expect(put.status).toBe(200);
    await refreshCatalog();
    const simOffer = (await simOffers())[0]!;
    const row = await database(env.DB).selectFrom("offers").selectAll().where("provider", "=", "runpod").orderBy("hourly_usd").executeTakeFirstOrThrow();
    const runpodOffer = rowToOffer(row);
    const id = await leaseWith(org, [simOffer, runpodOffer], { ttl: H });
    const ready = await waitForState(writer, id, "ready", 20_000);
    expect(ready.provider).toBe("runpod");
    expect(ready.hourly_usd).toBeGreaterThan(0);
    expect(ready.offer.id).toBe(runpodOffer.id);
    const ev = await events(writer, id);
    expect(ev.find((e) => e.type === "host_excluded")).toMatchObject({ reason: "no_capacity", detail: { provider: "sim", next_provider: "runpod", next_offer: runpodOffer.id } });
    expect(ev.find((e) => e.type === "machine_created")).toMatchObject({ detail: { provider: "runpod" } });
    expect((await runpod.getLedger(`lessor-dev-${id}-`)).machines).toHaveLength(1);
    expect(await machinesOf(id)).toHaveLength(0);
    await fastSim();
    await call("POST", `/v1/leases/${id}/end`, { key: writer });
    await waitForState(writer, id, "released", 20_000);
    expect((await runpod.getLedger(`lessor-dev-${id}-`)).machines.every((m) => m.status === "TERMINATED")).toBe(true);
  });
});

describe("Money 3: a stopped lease whose machine is running again is guarded again", () => {
  let org: TestOrg;
  let writer: string;
  leaseSuite((o, k) => {
    org = o;
    writer = k;
  });

  async function stoppedLease() {
    const lease = await createLease(writer, { kind: "scratch", spec: { gpu: "l4:1", providers: ["sim"] }, policy: { ttl: "1h" } });
    const ready = await waitForState(writer, lease.id, "ready");
    await call("POST", `/v1/leases/${lease.id}/stop`, { key: writer });
    const stopped = await waitForState(writer, lease.id, "stopped");
    return { id: lease.id as string, machine: ready.machine.id as string, stopped };
  }

  it("POST /v1/sim/machines/:id/{start,stop,destroy}: the operator's console, with the bootstrap token; 404 for an unknown machine", async () => {
    await expectError(await call("POST", "/v1/sim/machines/sim-m-nope/start", { key: BOOTSTRAP }), 404, "not_found");
    await expectError(await call("POST", "/v1/sim/machines/sim-m-nope/reboot", { key: BOOTSTRAP }), 400);
    await expectError(await call("POST", "/v1/sim/machines/sim-m-nope/start", { key: org.adminKey }), 401);
    const spec = await json(await call("GET", "/v1/openapi.json"));
    expect(spec.paths["/v1/sim/machines/{id}/{action}"]?.post).toBeDefined();
  });

  it("on its next observation: stopped again with unexpected_start, recorded, and the interval billed", async () => {
    const { id, machine, stopped } = await stoppedLease();
    const res = await call("POST", `/v1/sim/machines/${machine}/start`, { key: BOOTSTRAP });
    expect(res.status).toBe(200);
    await expectError(await call("POST", `/v1/sim/machines/${machine}/start`, { key: BOOTSTRAP }), 409, "invalid_state");
    await new Promise((r) => setTimeout(r, 300));
    await stubOf(id).tick();
    await waitFor("the unexpected start to be stopped", async () => (await events(writer, id)).some((e) => e.type === "stop_requested" && e.reason === "unexpected_start"));
    const again = await waitForState(writer, id, "stopped");
    expect(again.billing.estimate.running_seconds).toBeGreaterThan(stopped.billing.estimate.running_seconds);
    const [m] = await machinesOf(id);
    expect(m!.status).toBe("EXITED");
    await call("POST", `/v1/leases/${id}/end`, { key: writer });
  });

  it("the reconciler notices within one sweep", async () => {
    const { id, machine } = await stoppedLease();
    expect((await call("POST", `/v1/sim/machines/${machine}/start`, { key: BOOTSTRAP })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    await runReconciler(env, Date.now());
    await waitFor("the unexpected start to be stopped", async () => (await events(writer, id)).some((e) => e.reason === "unexpected_start"));
    await waitForState(writer, id, "stopped");
    await call("POST", `/v1/leases/${id}/end`, { key: writer });
  });
});

describe("Money 4: a 404 for a machine lessor created is not read as gone without the account that created it", () => {
  let writer: string;
  leaseSuite((_org, k) => {
    writer = k;
  });

  it("the lease records which account created its machine; a key that cannot see the machine neither loses nor forgets it", async () => {
    const lease = await createLease(writer, { kind: "scratch", spec: { gpu: "l4:1", providers: ["sim"] }, policy: { ttl: "1h" } });
    const ready = await waitForState(writer, lease.id, "ready");
    let account: unknown;
    await runInDurableObject(stubOf(lease.id) as unknown as DurableObjectStub<LeaseObject>, async (_i, state) => {
      account = (JSON.parse(state.storage.sql.exec<{ record: string }>(`SELECT record FROM lease`).toArray()[0]!.record) as LeaseRecord).machine_account;
    });
    expect(account).toBe(""); // the sim's one installation-wide account
    // As if the org had replaced its key with one of another account: the key in use now sees no
    // such machine (a 404), which says nothing of the machine the other account holds.
    await patchRecord(lease.id, (l) => ({ ...l, machine_account: "key:0123456789abcdef" }));
    await sim().operate(ready.machine.id, "destroy");
    await stubOf(lease.id).tick();
    const after = await getLease(writer, lease.id);
    expect(after.state).toBe("ready");
    expect(after.machine.id).toBe(ready.machine.id);
    const failed = (await events(writer, lease.id)).find((e) => e.type === "observe_failed");
    expect(failed?.detail.error).toMatch(/another sim key/);
    // Ending it does not forget the machine either: it waits for the account that can see it.
    await call("POST", `/v1/leases/${lease.id}/end`, { key: writer });
    await stubOf(lease.id).tick();
    const ending = await getLease(writer, lease.id);
    expect(ending.state).toBe("releasing");
    expect(ending.machine.id).toBe(ready.machine.id);
    // The same account answering twice is the machine gone.
    await patchRecord(lease.id, (l) => ({ ...l, machine_account: "", retry_at: null }));
    await stubOf(lease.id).tick();
    await waitForState(writer, lease.id, "released");
  });

  it("with the account that created it, one 404 read twice is the machine gone (provider_lost)", async () => {
    const lease = await createLease(writer, { kind: "scratch", spec: { gpu: "l4:1", providers: ["sim"] }, policy: { ttl: "1h" } });
    const ready = await waitForState(writer, lease.id, "ready");
    await sim().operate(ready.machine.id, "destroy");
    await stubOf(lease.id).tick();
    const released = await waitForState(writer, lease.id, "released");
    expect(released.release_reason).toBe("provider_lost");
  });
});
