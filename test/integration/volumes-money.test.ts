/**
 * What volumes cost, on the sim (docs/volumes.md "What a volume costs", docs/billing.md "Volumes"):
 * a volume's storage is reserved against the org's budget from its creation (one that does not fit
 * is 402 over_budget, and leases count it), the sim's billing records of it become its receipt,
 * usage counts it, and a volume no live lease has mounted for the org's volume_idle_ttl is reported,
 * and deleted only where the org asked, never while a lease mounts it.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runBilling } from "../../src/billing/reconcile";
import { runVolumeIdleSweep } from "../../src/lease/reaper";
import { call, createKey, createOrg, expectError, json } from "./helpers";
import { createLease, fastSim, leaseSuite, sim, waitForState } from "./lease-helpers";

let key: string;
leaseSuite((_o, k) => {
  key = k;
});

/** The sim's billing window here: a volume bills across several in a second or two. */
const W = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function orgWithKeys() {
  const org = await createOrg();
  return { org, key: (await createKey(org, "write")).secret };
}

describe("volume money", () => {
  it("a volume reserves its storage against the budget from its creation: one that does not fit is 402 over_budget; deleting it gives the rest back", async () => {
    const { org, key } = await orgWithKeys();
    const admin = org.adminKey;
    expect((await call("PUT", "/v1/budget", { key: admin, body: { monthly_usd: 2 } })).status).toBe(200);
    // 100,000 GB at $0.10 a GB-month: far past $2 for the rest of any month.
    const big = await expectError(await call("POST", "/v1/volumes", { key, body: { name: "huge", size_gb: 100_000 } }), 402, "over_budget");
    expect(big.details).toMatchObject({ cap: "monthly", limit_usd: 2 });
    expect(big.message).toContain("this volume could cost");
    expect((await call("GET", "/v1/volumes", { key }).then(json)).data).toEqual([]);

    // 10 GB: at most $1 in any month, so it fits; the budget counts it from now.
    const made = await call("POST", "/v1/volumes", { key, body: { name: "small", size_gb: 10 } });
    expect(made.status).toBe(201);
    const volume = await json(made);
    const budget = await json(await call("GET", "/v1/budget", { key: admin }));
    expect(budget.month_committed_usd).toBeGreaterThan(0);
    expect(budget.month_committed_usd).toBeLessThanOrEqual(1);
    expect(budget.live_hourly_usd).toBeCloseTo((10 * 0.1) / 730, 6);

    // Its rate counts against the concurrent hourly cap like a live lease's.
    expect((await call("PUT", "/v1/budget", { key: admin, body: { concurrent_hourly_usd: 0.002 } })).status).toBe(200);
    const hourly = await expectError(await call("POST", "/v1/volumes", { key, body: { name: "second", size_gb: 10 } }), 402, "over_budget");
    expect(hourly.details).toMatchObject({ cap: "concurrent_hourly", limit_usd: 0.002 });
    // A lease too: its rate on top of the volume's passes the cap.
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: "1h" } } }), 402, "over_budget");

    expect((await call("DELETE", `/v1/volumes/${volume.id}`, { key })).status).toBe(200);
    const after = await json(await call("GET", "/v1/budget", { key: admin }));
    expect(after.live_hourly_usd).toBe(0);
    // What it billed while it lived stays (seconds of 10 GB: under a micro-dollar or two).
    expect(after.month_committed_usd).toBeLessThan(0.0001);
    expect((await call("POST", "/v1/volumes", { key, body: { name: "second", size_gb: 10 } })).status).toBe(201);
  });

  it("a volume's storage on the sim becomes its receipt once its windows are published, equal to the estimate within tolerance; usage counts it", async () => {
    await fastSim({ billing_window_ms: W });
    const made = await call("POST", "/v1/volumes", { key, body: { name: "billed", size_gb: 100_000 } });
    expect(made.status).toBe(201);
    const volume = await json(made);
    await sleep(3 * W);
    expect((await call("DELETE", `/v1/volumes/${volume.id}`, { key })).status).toBe(200);
    // Every window the volume billed in has closed, and (no delay) been published.
    await sleep(W + 50);
    const report = await runBilling(env, Date.now());
    if ("skipped" in report) throw new Error("billing step skipped");
    expect(report.volumes.settled).toBeGreaterThanOrEqual(1);
    const list = (await json(await call("GET", `/v1/receipts?volume_id=${volume.id}`, { key }))).data;
    expect(list).toHaveLength(1);
    const receipt = await json(await call("GET", `/v1/receipts/${list[0].id}`, { key }));
    expect(receipt).toMatchObject({ lease_id: null, volume_id: volume.id, provider: "sim", gpu: null, status: "settled" });
    expect(receipt.window_count).toBeGreaterThanOrEqual(3);
    expect(receipt.actual_usd).toBeGreaterThan(0);
    expect(Math.abs(receipt.actual_usd - receipt.estimate_usd)).toBeLessThanOrEqual(Math.max(0.01, receipt.actual_usd / 100));
    // The sim's own records of the volume sum to it.
    const records = (await sim().getBilling({ from: 0 })).volume_records.filter((r) => r.label.endsWith(volume.id));
    expect(records.reduce((a, r) => a + r.amount_usd, 0)).toBeCloseTo(receipt.actual_usd, 5);
    // A second run writes nothing more.
    await runBilling(env, Date.now());
    expect((await json(await call("GET", `/v1/receipts?volume_id=${volume.id}`, { key }))).data).toHaveLength(1);
    const usage = await json(await call("GET", "/v1/usage?group_by=gpu", { key }));
    const storage = usage.data.find((r: any) => r.key === "volume");
    expect(storage.volumes).toBeGreaterThanOrEqual(1);
    expect(storage.actual_usd).toBeGreaterThanOrEqual(receipt.actual_usd - 1e-6);
    expect(storage.estimate_usd).toBeGreaterThan(0);
    expect(usage.totals.volumes).toBeGreaterThanOrEqual(1);
  });

  it("volume_idle_ttl: an org setting, validated; a volume idle that long is reported, and deleted only when the org asked, never while mounted", async () => {
    const { org, key } = await orgWithKeys();
    const admin = org.adminKey;
    const settings = await json(await call("GET", "/v1/org/settings", { key: admin }));
    expect(settings).toMatchObject({ volume_idle_ttl: null, volume_idle_action: "report" });
    await expectError(await call("PUT", "/v1/org/settings", { key: admin, body: { volume_idle_ttl: "soon" } }), 400, "invalid_duration");
    await expectError(await call("PUT", "/v1/org/settings", { key: admin, body: { volume_idle_action: "burn" } }), 400, "invalid_request");
    await expectError(await call("PUT", "/v1/org/settings", { key, body: { volume_idle_ttl: "1h" } }), 403, "insufficient_scope");

    const volume = await json(await call("POST", "/v1/volumes", { key, body: { name: "idle", size_gb: 10 } }));
    expect(volume.idle_since).toBe(volume.created_at);
    const created = Date.parse(volume.created_at);
    // No ttl: never idle, whatever the clock.
    let report = await runVolumeIdleSweep(env, created + 365 * 86_400_000);
    if ("skipped" in report) throw new Error("idle sweep skipped");
    expect((await call("GET", `/v1/volumes/${volume.id}`, { key })).status).toBe(200);

    expect(await json(await call("PUT", "/v1/org/settings", { key: admin, body: { volume_idle_ttl: "1h" } }))).toMatchObject({ volume_idle_ttl: "1h", volume_idle_action: "report" });
    report = await runVolumeIdleSweep(env, created + 30 * 60_000);
    if ("skipped" in report) throw new Error("idle sweep skipped");
    expect(report.idle).toBe(0);
    // Reported, not deleted: the org did not ask for that.
    report = await runVolumeIdleSweep(env, created + 2 * 3_600_000);
    if ("skipped" in report) throw new Error("idle sweep skipped");
    expect(report).toMatchObject({ idle: 1, deleted: 0 });
    expect((await json(await call("GET", `/v1/volumes/${volume.id}`, { key }))).state).toBe("ready");

    // Asked to delete: a mounted volume is not idle, however long ago it was made.
    expect((await call("PUT", "/v1/org/settings", { key: admin, body: { volume_idle_action: "delete" } })).status).toBe(200);
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", regions: [volume.region] }, volumes: [{ name: "idle", path: "/data" }] });
    expect((await json(await call("GET", `/v1/volumes/${volume.id}`, { key }))).idle_since).toBeNull();
    report = await runVolumeIdleSweep(env, Date.now() + 2 * 3_600_000);
    if ("skipped" in report) throw new Error("idle sweep skipped");
    expect(report.idle).toBe(0);
    expect((await call("GET", `/v1/volumes/${volume.id}`, { key })).status).toBe(200);

    // Released: idle from the release, and deleted an hour on, through DELETE's path.
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    const released = await waitForState(key, lease.id, "released");
    const idle = await json(await call("GET", `/v1/volumes/${volume.id}`, { key }));
    expect(idle.idle_since).toBe(released.released_at);
    report = await runVolumeIdleSweep(env, Date.parse(released.released_at) + 30 * 60_000);
    if ("skipped" in report) throw new Error("idle sweep skipped");
    expect(report.idle).toBe(0);
    report = await runVolumeIdleSweep(env, Date.parse(released.released_at) + 3_600_000);
    if ("skipped" in report) throw new Error("idle sweep skipped");
    expect(report).toMatchObject({ idle: 1, deleted: 1, failed: 0 });
    expect((await call("GET", `/v1/volumes/${volume.id}`, { key })).status).toBe(404);
    // Gone at the sim too, as DELETE would leave it.
    expect((await sim().getLedger("")).volumes.find((v) => v.label.endsWith(volume.id))?.deleted_at).toEqual(expect.any(Number));
    const bill = await env.DB.prepare("SELECT deleted_at FROM volume_bills WHERE volume_id = ?").bind(volume.id).first<{ deleted_at: number | null }>();
    expect(bill?.deleted_at).not.toBeNull();
  });
});
