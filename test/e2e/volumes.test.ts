/**
 * Volumes end to end on the sim (docs/volumes.md), against a real `wrangler dev`: a job writes a
 * checkpoint to a volume, a second job on another machine reads it back; the volume cannot be
 * deleted while a lease mounts it, and can once none does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, runningServers, startServer, stopServer, type Server } from "./server";

let server: Server;
let key: string;

beforeAll(async () => {
  server = await startServer();
  const org = await apiCall(server, "POST", "/v1/orgs", bootstrapTokenFromDevVars(), { name: "volumes-e2e" });
  expect(org.status, JSON.stringify(org.json)).toBe(201);
  key = org.json.key.secret;
});

afterAll(async () => {
  for (const s of server ? [server] : runningServers()) {
    await stopServer(s);
    removeStateDir(s);
  }
});

const api = (method: string, route: string, body?: unknown) => apiCall(server, method, route, key, body);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function jobDone(cmd: string): Promise<{ id: string; machine: string; region: string; exit: unknown; log: string }> {
  const made = await api("POST", "/v1/leases", { kind: "job", spec: { gpu: "l4:1" }, cmd, volumes: [{ name: "ckpt", path: "/ckpt" }] });
  expect(made.status, JSON.stringify(made.json)).toBe(202);
  const lease = await until(`job ${made.json.id} released`, async () => {
    const l = await api("GET", `/v1/leases/${made.json.id}`);
    return l.json.state === "released" ? l.json : null;
  });
  const log = await fetch(`${server.base}/v1/leases/${lease.id}/logs`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.text());
  return { id: lease.id, machine: lease.machine?.id, region: lease.offer.region, exit: lease.exit, log };
}

describe("a volume on the sim", () => {
  it("holds a checkpoint one job writes for the next job, on another machine", async () => {
    // In a region where the sim offers L4s, once the cron has read its market.
    const region = await until("an L4 offer", async () => (await api("GET", "/v1/catalog/offers?gpu=l4&provider=sim")).json.data?.[0]?.region);
    const volume = (await api("POST", "/v1/volumes", { name: "ckpt", size_gb: 50, region })).json;
    expect(volume).toMatchObject({ name: "ckpt", provider: "sim", state: "ready", size_gb: 50, monthly_usd: 5 });

    const first = await jobDone("echo training; write /ckpt/model.pt epoch-3 loss-0.12; echo saved");
    expect(first.exit).toMatchObject({ code: 0 });
    expect(first.region.toLowerCase()).toBe(volume.region.toLowerCase());
    const second = await jobDone("read /ckpt/model.pt");
    expect(second.exit).toMatchObject({ code: 0 });
    expect(second.log).toBe("epoch-3 loss-0.12\n");
    expect(second.machine).not.toBe(first.machine);

    // A scratch lease that mounts it keeps it from being deleted until it is released.
    const held = await api("POST", "/v1/leases", { kind: "scratch", spec: { gpu: "l4:1" }, cmd: "hang", volumes: [{ name: "ckpt", path: "/ckpt" }] });
    expect(held.status).toBe(202);
    const refused = await api("DELETE", `/v1/volumes/${volume.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: "volume_in_use", details: { leases: [held.json.id] } });
    expect((await api("POST", `/v1/leases/${held.json.id}/end`, {})).status).toBe(200);
    await until("the scratch lease released", async () => (await api("GET", `/v1/leases/${held.json.id}`)).json.state === "released");
    expect((await api("DELETE", `/v1/volumes/${volume.id}`)).status).toBe(200);
    expect((await api("GET", "/v1/volumes")).json.data).toEqual([]);
  });
});
