/**
 * `GET/PUT /v1/quota` and the GPU quota on `POST /v1/leases`: a create over it is 409
 * `quota_exceeded` with nothing rented; a deployment displaces the newest scratch lease (released
 * `preempted`, by the deployment); concurrent creates never pass it; a released lease's GPUs are
 * free again. The rule itself is table-tested in test/unit/quota.test.ts.
 */
import { describe, expect, it } from "vitest";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, fastSim, getLease, waitForState } from "./lease-helpers";

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
