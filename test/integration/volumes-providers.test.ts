/**
 * Volumes on each provider's stub cloud (docs/volumes.md), through the real adapter: made in a
 * region, mounted by a lease placed there, a lease elsewhere refused naming the volume, a delete
 * refused while a live lease mounts it, then deleted. The stub checks every request and answer
 * against the provider's published document, and the test ends with none it refused.
 */
import { describe, expect, inject, it } from "vitest";
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
const CASES: Array<{ provider: StubProvider; gpu: string; region: string; elsewhere: string; size_gb: number; mounts: (machineId: string) => Promise<unknown> }> = [
  {
    provider: "runpod",
    gpu: "l40s-runpod:1",
    region: "eu-ro-1",
    elsewhere: "us-ks-2",
    size_gb: 20,
    mounts: async (id) => (await providerGet("runpod", `/v2/pods/${id}`)).mounts.network.map((n: any) => n.path),
  },
  {
    provider: "lambda",
    gpu: "l40s-lambda:1",
    region: "us-west-1",
    elsewhere: "us-east-1",
    size_gb: 100,
    mounts: async (id) => (await providerGet("lambda", `/api/v1/instances/${id}`)).data.file_system_mounts.map((n: any) => n.mount_point),
  },
];

describe.each(CASES)("a volume on $provider", ({ provider, gpu, region, elsewhere, size_gb, mounts }) => {
  const served = stubs?.providers.includes(provider) ?? false;

  it.skipIf(!served)("is made, mounted by a lease in its region only, kept while mounted, then deleted", async () => {
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
    expect((await admin.getViolations()).violations).toEqual([]);
  });
});
