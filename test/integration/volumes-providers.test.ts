/**
 * Volumes on each provider's stub cloud (docs/volumes.md), through the real adapter: made in a
 * region, mounted by a lease placed there, a lease elsewhere refused naming the volume, a delete
 * refused while a live lease mounts it, then deleted, and billed: where the provider reports its
 * volumes' billing (RunPod's GET /v2/billing/networkvolumes) the billing step turns the volume's
 * records into its receipt; where it does not (Lambda), none is written. The stub checks every
 * request and answer against the provider's published document, and the test ends with none it
 * refused.
 *
 * The stub's billing window is shortened (W) so that the volume bills across several of its
 * buckets in seconds; the adapter's lag (RUNPOD_BILLING_LAG_MS) is real, so the billing step is
 * handed a clock past it, as test/integration/billing-providers.test.ts does.
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runBilling } from "../../src/billing/reconcile";
import { RUNPOD_BILLING_LAG_MS } from "../../src/providers/runpod/adapter";
import { SIM_DEFAULT_FAULTS } from "../../src/providers/sim/faults";
import { STUB_API_KEYS, stubBaseUrl, stubCloudAdmin, type StubProvider } from "../support/stub-clouds-admin";
import { call, expectError, json, orgOnStubCloud } from "./helpers";
import { createLease, events, waitForState } from "./lease-helpers";

const stubs = inject("stubClouds");

/** A read of the provider's own API on its stub, with the stub's key. */
async function providerGet(provider: StubProvider, path: string): Promise<any> {
  const res = await fetch(`${stubBaseUrl(stubs!.url, provider)}${path}`, { headers: { authorization: `Bearer ${STUB_API_KEYS[provider]}` } });
  expect(res.status).toBe(200);
  return res.json();
}

/**
 * Per provider: a region its stub sells the GPU in, one where it sells it too but the volume is
 * not, and what the provider says the machine mounts (read from its own API).
 */
const HOUR = 3_600_000;
/** The stub's billing window while these tests run (RunPod's hour buckets shrink with it). */
const W = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CASES: Array<{
  provider: StubProvider;
  gpu: string;
  region: string;
  elsewhere: string;
  size_gb: number;
  mounts: (machineId: string) => Promise<unknown>;
  /** The provider's own records of the volume's storage, read from its API; null where it reports none. */
  billed: ((volumeId: string) => Promise<number[]>) | null;
}> = [
  {
    provider: "runpod",
    gpu: "l40s-runpod:1",
    region: "eu-ro-1",
    elsewhere: "us-ks-2",
    // Large, so that a few seconds of storage bill whole micro-dollars.
    size_gb: 4000,
    mounts: async (id) => (await providerGet("runpod", `/v2/pods/${id}`)).mounts.network.map((n: any) => n.path),
    billed: async (id) => {
      const start = new Date(Date.now() - HOUR).toISOString();
      const body = await providerGet("runpod", `/v2/billing/networkvolumes?bucketSize=hour&networkVolumeId=${id}&startTime=${encodeURIComponent(start)}`);
      return body.records.map((r: any) => r.totalAmount);
    },
  },
  {
    provider: "lambda",
    gpu: "l40s-lambda:1",
    region: "us-west-1",
    elsewhere: "us-east-1",
    size_gb: 100,
    mounts: async (id) => (await providerGet("lambda", `/api/v1/instances/${id}`)).data.file_system_mounts.map((n: any) => n.mount_point),
    billed: null,
  },
];

describe.each(CASES)("a volume on $provider", ({ provider, gpu, region, elsewhere, size_gb, mounts, billed }) => {
  const served = stubs?.providers.includes(provider) ?? false;

  beforeAll(async () => {
    // Not a reset: the stub is shared with other files, whose machines must not vanish.
    if (served) await stubCloudAdmin(stubs!.url, provider).setFaults({ billing_window_ms: W, billing_delay_ms: 0, billing_markup: 0 });
  });
  afterAll(async () => {
    if (!served) return;
    const { billing_window_ms, billing_delay_ms } = SIM_DEFAULT_FAULTS;
    await stubCloudAdmin(stubs!.url, provider).setFaults({ billing_window_ms, billing_delay_ms });
  });

  it.skipIf(!served)("is made, mounted by a lease in its region only, kept while mounted, deleted, and billed from the provider's records where it has them", async () => {
    const { org, key } = await orgOnStubCloud(provider);
    const admin = stubCloudAdmin(stubs!.url, provider);
    const name = `data-${crypto.randomUUID().slice(0, 8)}`;
    const made = await call("POST", "/v1/volumes", { key, body: { name, size_gb, provider, region } });
    expect(made.status, await made.clone().text()).toBe(201);
    const volume = await json(made);
    expect(volume).toMatchObject({ provider, region, size_gb, state: "ready" });

    // Under /data: Lambda mounts a filesystem only under /home, /lambda/nfs or /data.
    const mount = [{ name, path: "/data/set" }];
    // Elsewhere: refused before anything is rented, naming the volume.
    const refused = await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: { gpu, regions: [elsewhere] }, volumes: mount } }), 409, "no_capacity");
    expect(refused.details.volumes).toEqual([{ name, provider, region }]);

    const lease = await createLease(key, { kind: "scratch", spec: { gpu }, volumes: mount });
    expect(lease.offer).toMatchObject({ provider, region });
    await waitForState(key, lease.id, "ready", 30_000);
    // Where the machine was created, as the provider answered it.
    const created = (await events(key, lease.id)).find((e) => e.type === "machine_created");
    expect(created?.detail.region).toBe(region);
    expect(await mounts(created!.detail.machine_id)).toEqual(["/data/set"]);

    const busy = await expectError(await call("DELETE", `/v1/volumes/${volume.id}`, { key }), 409, "volume_in_use");
    expect(busy.details.leases).toEqual([lease.id]);
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released", 30_000);
    // The provider's key stays while a volume there needs it.
    const keyKept = await expectError(await call("DELETE", `/v1/providers/${provider}`, { key: org.adminKey }), 409, "provider_in_use");
    expect(keyKept.details.volumes).toBe(1);
    expect((await call("DELETE", `/v1/volumes/${volume.id}`, { key })).status).toBe(200);
    expect((await call("GET", `/v1/volumes/${volume.id}`, { key })).status).toBe(404);

    // Billed: once the provider's last bucket holding the deletion has closed, the billing step
    // (its clock past the adapter's lag) writes the volume's receipt from the provider's records.
    const providerVolumeId = (await env.DB.prepare("SELECT provider_volume_id AS id FROM volume_bills WHERE volume_id = ?").bind(volume.id).first<{ id: string }>())!.id;
    await sleep(2 * W + 100);
    const report = await runBilling(env, Date.now() + RUNPOD_BILLING_LAG_MS + HOUR);
    if ("skipped" in report) throw new Error("billing step skipped: another run holds its lock");
    for (const a of report.accounts) if (a.provider === provider) expect(a.error).toBeUndefined();
    const receipts = (await json(await call("GET", `/v1/receipts?volume_id=${volume.id}`, { key }))).data;
    if (billed === null) {
      // The provider reports no billing: nothing to settle from, and nothing is made up.
      expect(receipts).toEqual([]);
    } else {
      expect(receipts).toHaveLength(1);
      const receipt = await json(await call("GET", `/v1/receipts/${receipts[0].id}`, { key }));
      const records = await billed(providerVolumeId);
      expect(records.length).toBeGreaterThan(1);
      const sum = records.reduce((a, b) => a + b, 0);
      expect(receipt).toMatchObject({ lease_id: null, volume_id: volume.id, provider, status: "settled", estimate_usd: null, difference_usd: null, window_count: records.length });
      expect(receipt.actual_usd).toBeGreaterThan(0);
      expect(Math.abs(receipt.actual_usd - sum)).toBeLessThan(1e-6 * records.length);
      expect(receipt.windows.every((w: any) => w.machine_id === providerVolumeId)).toBe(true);
      // A second run changes nothing: the receipt is written once.
      await runBilling(env, Date.now() + RUNPOD_BILLING_LAG_MS + HOUR);
      expect((await json(await call("GET", `/v1/receipts?volume_id=${volume.id}`, { key }))).data).toHaveLength(1);
      // Usage counts the volume's storage.
      const usage = await json(await call("GET", "/v1/usage?group_by=gpu", { key }));
      const storage = usage.data.find((r: any) => r.key === "volume");
      expect(storage).toMatchObject({ volumes: 1, leases: 0, estimate_usd: 0 });
      expect(storage.actual_usd).toBeCloseTo(receipt.actual_usd, 6);
    }
    expect((await admin.getViolations()).violations).toEqual([]);
  });
});
