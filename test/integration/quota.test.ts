/**
 * `GET/PUT /v1/quota` and the GPU quota on `POST /v1/leases`: a create over it is 409
 * `quota_exceeded` with nothing rented; a deployment displaces the newest scratch lease (released
 * `preempted`, by the deployment); concurrent creates never pass it; a released lease's GPUs are
 * free again. The rule itself is table-tested in test/unit/quota.test.ts.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, onTestFinished } from "vitest";
import { renderOffer, rowToOffer } from "../../src/catalog/offers-repo";
import { database } from "../../src/db";
import { newId } from "../../src/ids";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, fastSim, getLease, machinesOf, sim, waitFor, waitForState } from "./lease-helpers";

const SPEC = { gpu: "l40s:1" };
const scratch = { kind: "scratch", spec: SPEC, policy: { ttl: "1h" } };
const job = { kind: "job", cmd: "hang", spec: SPEC, policy: { ttl: "1h" } };
const deployment = { kind: "deployment", spec: SPEC, policy: { ttl: "1h" } };

let simReady: Promise<void> | undefined;
async function quotaOrg(quota?: Record<string, unknown>): Promise<{ org: TestOrg; key: string }> {
  simReady ??= fastSim().then(() => refreshCatalog()).then(() => undefined);
  await simReady;
  const org = await createOrg();
  if (quota) expect((await call("PUT", "/v1/quota", { key: org.adminKey, body: quota })).status).toBe(200);
  return { org, key: (await createKey(org, "write")).secret };
}

const quotaOf = async (key: string) => json(await call("GET", "/v1/quota", { key }));
const end = (key: string, id: string) => call("POST", `/v1/leases/${id}/end`, { key, body: {} });

describe("GET/PUT /v1/quota", () => {
  it("is none by default, set only by an admin, replaced whole, and removed by gpus null", async () => {
    const { org, key } = await quotaOrg();
    const none = { gpus: null, per_kind: { deployment: null, job: null, scratch: null }, held: { total: 0, deployment: 0, job: 0, scratch: 0 }, updated_at: null };
    expect(await quotaOf(key)).toEqual(none);
    await expectError(await call("PUT", "/v1/quota", { key, body: { gpus: 4 } }), 403, "insufficient_scope");
    for (const body of [{}, { gpus: -1 }, { gpus: 1.5 }, { gpus: "4" }, { gpus: 4, per_kind: { pets: 1 } }, { gpus: 4, per_kind: { job: -1 } }, { gpus: 4, other: 1 }]) {
      await expectError(await call("PUT", "/v1/quota", { key: org.adminKey, body }), 400, "invalid_request");
    }
    const set = await json(await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: 4, per_kind: { job: 2 } } }));
    expect(set).toMatchObject({ gpus: 4, per_kind: { deployment: null, job: 2, scratch: null } });
    // What GET answers can be PUT back.
    expect(await json(await call("PUT", "/v1/quota", { key: org.adminKey, body: await quotaOf(key) }))).toMatchObject({ gpus: 4, per_kind: { job: 2 } });
    expect(await json(await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: 0 } }))).toMatchObject({ gpus: 0, per_kind: { job: null } });
    expect(await json(await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: null, per_kind: { job: 1 } } }))).toEqual(none);
  });
});

describe("the GPU quota on a create", () => {
  it("admits up to the quota, then refuses with 409 quota_exceeded and rents nothing; a released lease's GPUs are free again", async () => {
    const { key } = await quotaOrg({ gpus: 2 });
    const a = await createLease(key, scratch);
    await createLease(key, job);
    expect((await quotaOf(key)).held).toEqual({ total: 2, deployment: 0, job: 1, scratch: 1 });
    for (const body of [scratch, job]) {
      const refused = await expectError(await call("POST", "/v1/leases", { key, body }), 409, "quota_exceeded");
      expect(refused.details).toEqual({ quota: "gpus", limit: 2, held: 2, requested: 1 });
      expect(refused.message).toContain("GPU quota of 2");
    }
    // No lease was made for either, so no object that could rent.
    expect((await json(await call("GET", "/v1/leases", { key }))).data).toHaveLength(2);

    await end(key, a.id);
    await waitForState(key, a.id, "released");
    const again = await createLease(key, scratch);
    expect(again.state).not.toBe("released");
  });

  it("a deployment displaces the newest scratch lease, which is released preempted by it", async () => {
    const { key } = await quotaOrg({ gpus: 3 });
    const older = await createLease(key, scratch);
    const newer = await createLease(key, scratch);
    const running = await createLease(key, job);
    const dep = await createLease(key, deployment);

    const released = await waitForState(key, newer.id, "released");
    expect(released.release_reason).toBe("preempted");
    const requested = (await events(key, newer.id)).find((e) => e.type === "release_requested");
    expect(requested).toMatchObject({ reason: "preempted", detail: { by: dep.id } });
    for (const id of [older.id, running.id, dep.id]) expect((await getLease(key, id)).state).not.toMatch(/^releas/);
    expect((await quotaOf(key)).held).toEqual({ total: 3, deployment: 1, job: 1, scratch: 1 });
  });

  it("scratch never displaces anything, and a deployment never displaces a job or a deployment", async () => {
    const { key } = await quotaOrg({ gpus: 2 });
    await createLease(key, deployment);
    await createLease(key, job);
    await expectError(await call("POST", "/v1/leases", { key, body: scratch }), 409, "quota_exceeded");
    const refused = await expectError(await call("POST", "/v1/leases", { key, body: deployment }), 409, "quota_exceeded");
    expect(refused.details).toEqual({ quota: "gpus", limit: 2, held: 2, requested: 1 });
    expect((await json(await call("GET", "/v1/leases", { key }))).data.every((l: any) => l.state !== "releasing" && l.state !== "released")).toBe(true);
  });

  it("a kind's own cap refuses that kind only, and a deployment over its own cap displaces nothing", async () => {
    const { key } = await quotaOrg({ gpus: 10, per_kind: { deployment: 1 } });
    const s = await createLease(key, scratch);
    await createLease(key, deployment);
    const refused = await expectError(await call("POST", "/v1/leases", { key, body: deployment }), 409, "quota_exceeded");
    expect(refused.details).toEqual({ quota: "per_kind.deployment", limit: 1, held: 1, requested: 1 });
    await createLease(key, scratch);
    expect((await getLease(key, s.id)).state).not.toMatch(/^releas/);
  });

  it("a lease without GPUs takes nothing, even under a quota lowered below what is held", async () => {
    const { org, key } = await quotaOrg({ gpus: 1 });
    await createLease(key, scratch);
    await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: 0 } });
    const cpu = await createLease(key, { kind: "scratch", spec: { cpu: 2 }, policy: { ttl: "1h" } });
    expect(cpu.offer.gpu_count).toBe(0);
    expect((await quotaOf(key)).held.total).toBe(1);
    await expectError(await call("POST", "/v1/leases", { key, body: scratch }), 409, "quota_exceeded");
  });

  it("concurrent creates never hold more than the quota", async () => {
    const { key } = await quotaOrg({ gpus: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => call("POST", "/v1/leases", { key, body: scratch })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409)) expect((await json(r)).error.code).toBe("quota_exceeded");
    expect((await quotaOf(key)).held.total).toBe(2);
  });

  it("a lease the quota refuses keeps no budget reservation, and one the budget refuses takes no GPUs", async () => {
    const { org, key } = await quotaOrg({ gpus: 0 });
    await expectError(await call("POST", "/v1/leases", { key, body: scratch }), 409, "quota_exceeded");
    expect((await json(await call("GET", "/v1/budget", { key }))).live_hourly_usd).toBe(0);

    await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: 1 } });
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { concurrent_hourly_usd: 0.01 } });
    await expectError(await call("POST", "/v1/leases", { key, body: scratch }), 402, "over_budget");
    await call("PUT", "/v1/budget", { key: org.adminKey, body: { concurrent_hourly_usd: null } });
    expect((await quotaOf(key)).held.total).toBe(0);
    await createLease(key, scratch);
  });
});

describe("fallback hosts and preemptions keep the GPU quota", () => {
  /** A sim offer of the class with `gpus` GPUs, on none of the hosts `avoid` (each test's own: a failed host is the org's bad host), as a quote renders it. */
  async function simOffer(gpus: number, avoid: Set<string>) {
    const rows = await database(env.DB).selectFrom("offers").selectAll().where("provider", "=", "sim").where("gpu_class", "=", "l40s").where("gpu_count", "=", gpus).where("spot", "=", 0).orderBy("hourly_usd").execute();
    const row = rows.find((r) => !avoid.has(r.host_id))!;
    expect(row, `a sim l40s offer with ${gpus} GPUs`).toBeDefined();
    avoid.add(row.host_id);
    return renderOffer(rowToOffer(row));
  }

  /** A quote of the org's whose chosen offer has one GPU and whose one fallback, on another host, has two. */
  async function quoteWithLargerFallback(orgId: string, avoid: Set<string>): Promise<string> {
    const offer = await simOffer(1, avoid);
    const fallback = await simOffer(2, avoid);
    const now = Date.now();
    const id = newId("qt", now);
    const body = { id, created_at: new Date(now).toISOString(), expires_at: new Date(now + 300_000).toISOString(), kind: "scratch", spec: { min_gpus: 1 }, policy: { ttl: "1h", max_lifetime: "1d" }, offer, fallbacks: [fallback], hourly_usd: offer.hourly_usd };
    await env.DB.prepare("INSERT INTO quotes (id, org_id, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?)").bind(id, orgId, JSON.stringify(body), now, now + 300_000).run();
    return id;
  }
  const holdOf = async (id: string) => (await env.DB.prepare("SELECT gpus FROM gpu_holds WHERE lease_id = ?").bind(id).first<{ gpus: number }>())?.gpus;

  it("a fallback host with more GPUs than the lease holds is admitted for them before it is rented; over the quota the lease is released quota_exceeded", async () => {
    const { org, key } = await quotaOrg({ gpus: 2 });
    const hosts = new Set<string>();
    await createLease(key, scratch);
    // Its first host fails to boot: the fallback has two GPUs, and the org holds one beside this lease.
    await sim().setFaults({ boot_failure_rate: 1 });
    onTestFinished(async () => void (await sim().setFaults({ boot_failure_rate: 0 })));
    const lease = await createLease(key, { kind: "scratch", quote_id: await quoteWithLargerFallback(org.id, hosts) });
    expect(await holdOf(lease.id)).toBe(1);
    const released = await waitForState(key, lease.id, "released", 20_000);
    expect(released.release_reason).toBe("quota_exceeded");
    const requested = (await events(key, lease.id)).find((e) => e.type === "release_requested");
    expect(requested.detail).toMatchObject({ quota: "gpus", limit: 2, held: 1, requested: 2 });
    // Only its first host was ever rented, and its hold never grew.
    expect(await machinesOf(lease.id)).toHaveLength(1);
    expect(await holdOf(lease.id)).toBe(1);

    // Room for it: the hold grows to the fallback's GPUs, and the fallback is rented.
    await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: 3 } });
    const roomy = await createLease(key, { kind: "scratch", quote_id: await quoteWithLargerFallback(org.id, hosts) });
    await waitFor("the fallback rented", async () => (await machinesOf(roomy.id)).length === 2, 20_000);
    expect(await holdOf(roomy.id)).toBe(2);
    await end(key, roomy.id);
  });

  it("a preemption that fails leaves no lease running uncounted: the displaced lease holds its GPUs again, and the deployment is refused with 503", async () => {
    const { key } = await quotaOrg({ gpus: 1 });
    const victim = await createLease(key, scratch);
    await waitForState(key, victim.id, "ready");
    // The victim's object cannot take the preemption: its storage refuses the write.
    const refuse = `CREATE TRIGGER refuse_preemption BEFORE UPDATE ON lease WHEN json_extract(NEW.record, '$.release_reason') = 'preempted' BEGIN SELECT RAISE(ABORT, 'test: this write is refused'); END`;
    await runInDurableObject(env.LEASE.get(env.LEASE.idFromName(victim.id)), (_o, state) => void state.storage.sql.exec(refuse));
    const res = await call("POST", "/v1/leases", { key, body: deployment });
    const refused = await expectError(res, 503, "preemption_failed");
    expect(refused.details).toEqual({ leases: [victim.id] });
    expect(res.headers.get("retry-after")).toBe("5");
    // The victim runs on, counted; nothing else was made or held.
    expect((await getLease(key, victim.id)).state).toBe("ready");
    expect((await quotaOf(key)).held).toEqual({ total: 1, deployment: 0, job: 0, scratch: 1 });
    expect((await json(await call("GET", "/v1/leases", { key }))).data.map((l: any) => l.id)).toEqual([victim.id]);
    // Once it can be told, the deployment displaces it.
    await runInDurableObject(env.LEASE.get(env.LEASE.idFromName(victim.id)), (_o, state) => void state.storage.sql.exec(`DROP TRIGGER refuse_preemption`));
    const dep = await createLease(key, deployment);
    expect((await waitForState(key, victim.id, "released")).release_reason).toBe("preempted");
    await end(key, dep.id);
  });
});
