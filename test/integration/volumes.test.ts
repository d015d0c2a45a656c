/**
 * Volumes on the sim (docs/volumes.md), in the Workers pool: made and found by name, mounted by a
 * lease placed where the volume lives, a lease elsewhere refused naming the volume, a delete
 * refused while a live lease mounts it, and a file one job writes read by the next job's machine.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runReconciler } from "../../src/lease/reaper";
import { SimProvider } from "../../src/providers/sim/adapter";
import { call, expectError, json, type TestOrg } from "./helpers";
import { endEverything } from "./deployment-helpers";
import { createLease, getLease, leaseSuite, machinesOf, waitFor, waitForState } from "./lease-helpers";

let key: string;
let org: TestOrg;
leaseSuite((o, k) => {
  org = o;
  key = k;
});

const SPEC = { gpu: "l40s:1" };

async function makeVolume(name: string, body: Record<string, unknown> = {}) {
  const res = await call("POST", "/v1/volumes", { key, body: { name, size_gb: 10, ...body } });
  expect(res.status).toBe(201);
  return json(res);
}

async function logOf(id: string): Promise<string> {
  const res = await call("GET", `/v1/leases/${id}/logs`, { key });
  expect(res.status).toBe(200);
  return res.text();
}

describe("volumes", () => {
  it("are made once by name; another size under the name is 409 volume_exists", async () => {
    const v = await makeVolume("scratch-a");
    expect(v).toMatchObject({ name: "scratch-a", provider: "sim", size_gb: 10, state: "ready", usd_per_gb_month: 0.1, monthly_usd: 1, mounted_by: [] });
    expect(v.id).toMatch(/^vol_/);
    const again = await call("POST", "/v1/volumes", { key, body: { name: "scratch-a", size_gb: 10 } });
    expect(again.status).toBe(200);
    expect((await json(again)).id).toBe(v.id);
    await expectError(await call("POST", "/v1/volumes", { key, body: { name: "scratch-a", size_gb: 20 } }), 409, "volume_exists");
    const list = await json(await call("GET", "/v1/volumes", { key }));
    expect(list.data.map((x: any) => x.name)).toContain("scratch-a");
    expect((await call("DELETE", `/v1/volumes/${v.id}`, { key })).status).toBe(200);
    expect((await call("GET", `/v1/volumes/${v.id}`, { key })).status).toBe(404);
  });

  it("a lease is placed where its volume lives; one that cannot be is 409 no_capacity naming it", async () => {
    const v = await makeVolume("placed");
    const lease = await createLease(key, { kind: "scratch", spec: SPEC, volumes: [{ name: "placed", path: "/data" }] });
    expect(lease.offer.provider).toBe("sim");
    expect(lease.offer.region.toLowerCase()).toBe(v.region.toLowerCase());
    expect(lease.volumes).toEqual([{ name: "placed", path: "/data" }]);
    const res = await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: { ...SPEC, regions: ["nowhere-1"] }, volumes: [{ name: "placed", path: "/data" }] } });
    const err = await expectError(res, 409, "no_capacity");
    expect(err.details.volumes).toEqual([{ name: "placed", provider: "sim", region: v.region }]);
    // A quote says so too: its spec is bound to the volume's provider and region.
    const q = await call("POST", "/v1/quotes", { key, body: { spec: SPEC, volumes: [{ name: "placed", path: "/data" }] } });
    expect(q.status).toBe(201);
    const quote = await json(q);
    expect(quote.spec).toMatchObject({ providers: ["sim"], regions: [v.region.toLowerCase()] });
    await waitForState(key, lease.id, "ready");
    // In use while the lease lives: refused, and the volume stays.
    const busy = await expectError(await call("DELETE", `/v1/volumes/${v.id}`, { key }), 409, "volume_in_use");
    expect(busy.details.leases).toEqual([lease.id]);
    expect((await json(await call("GET", `/v1/volumes/${v.id}`, { key }))).mounted_by).toEqual([lease.id]);
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released");
    expect((await call("DELETE", `/v1/volumes/${v.id}`, { key })).status).toBe(200);
    // Gone: a lease that names it is refused.
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC, volumes: [{ name: "placed", path: "/data" }] } }), 404, "not_found");
  });

  it("a file one job writes under the mount is read by the next job, on another machine", async () => {
    const v = await makeVolume("ckpt");
    const mount = [{ name: "ckpt", path: "/data" }];
    const first = await createLease(key, { kind: "job", spec: SPEC, cmd: "save /data/step step-100; save /tmp/local gone; echo saved", volumes: mount });
    await waitForState(key, first.id, "released", 20_000);
    expect((await getLease(key, first.id)).exit).toMatchObject({ code: 0 });
    const second = await createLease(key, { kind: "job", spec: SPEC, cmd: "read /data/step; read /tmp/local", volumes: mount });
    await waitForState(key, second.id, "released", 20_000);
    // The volume's file is there; the first machine's own disk is not.
    expect(await logOf(second.id)).toBe("step-100\nread: /tmp/local: no such file\n");
    expect((await getLease(key, second.id)).exit).toMatchObject({ code: 1 });
    const [m1] = await machinesOf(first.id);
    const [m2] = await machinesOf(second.id);
    expect(m1!.id).not.toBe(m2!.id);
    await waitFor("the volume free", async () => (await call("DELETE", `/v1/volumes/${v.id}`, { key })).status === 200);
  });

  it("a deployment mounts its volumes too, and they are part of its configuration", async () => {
    const v = await makeVolume("weights");
    const body = { model: "Qwen/Qwen2.5-0.5B-Instruct", volumes: [{ name: "weights", path: "/models" }] };
    const res = await call("PUT", "/v1/deployments/with-weights", { key, body });
    expect(res.status).toBe(202);
    const lease = await getLease(key, (await json(res)).lease_id);
    expect(lease.volumes).toEqual([{ name: "weights", path: "/models" }]);
    expect(lease.offer.region.toLowerCase()).toBe(v.region.toLowerCase());
    const moved = await call("PUT", "/v1/deployments/with-weights", { key, body: { ...body, volumes: [{ name: "weights", path: "/elsewhere" }] } });
    await expectError(moved, 409, "config_changed");
    await endEverything(org, key);
    expect((await call("DELETE", `/v1/volumes/${v.id}`, { key })).status).toBe(200);
  });

  it("the reconciler reports a labelled volume with no row, and a row whose volume is gone; it touches neither", async () => {
    const sim = new SimProvider(env);
    const stray = await sim.createVolume({ label: "lessor-dev-vol_0000000000strayvolume000000", size_gb: 1, region: (await makeVolume("probe")).region });
    const kept = await makeVolume("kept");
    const listed = await sim.listVolumes("lessor-dev-");
    const behindOurBack = listed.find((v) => v.label.endsWith(kept.id))!;
    await sim.deleteVolume(behindOurBack.id);
    // Not ours by label: never listed, never touched.
    const foreign = await sim.createVolume({ label: "someone-else", size_gb: 1, region: stray.region });
    const reports = (await runReconciler(env, Date.now())) as Array<{ provider: string; volumes?: Record<string, number> }>;
    const report = reports.find((r) => r.provider === "sim")!;
    expect(report.volumes).toMatchObject({ volumes_unknown: 1, volumes_missing: 1 });
    expect((await sim.listVolumes("")).map((v) => v.id)).toEqual(expect.arrayContaining([stray.id, foreign.id]));
    expect((await json(await call("GET", `/v1/volumes/${kept.id}`, { key }))).state).toBe("ready");
    for (const id of [stray.id, foreign.id]) await sim.deleteVolume(id);
  });

  it("a lease made from a quote that named a volume mounts it where the quote placed it", async () => {
    const v = await makeVolume("quoted");
    const mount = [{ name: "quoted", path: "/data" }];
    const quote = await json(await call("POST", "/v1/quotes", { key, body: { spec: SPEC, volumes: mount } }));
    const lease = await createLease(key, { kind: "scratch", quote_id: quote.id, volumes: mount });
    expect(lease.offer.region.toLowerCase()).toBe(v.region.toLowerCase());
    expect(lease.volumes).toEqual(mount);
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released");
    expect((await call("DELETE", `/v1/volumes/${v.id}`, { key })).status).toBe(200);
  });
});
