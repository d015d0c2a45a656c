/**
 * Volumes end to end on the sim (docs/volumes.md), against a real `wrangler dev`: a job writes a
 * checkpoint to a volume, a second job on another machine reads it back; the volume cannot be
 * deleted while a lease mounts it, and can once none does.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, repoRoot, runningServers, startServer, stopServer, type Server } from "./server";

let server: Server;
let key: string;

beforeAll(async () => {
  server = await startServer();
  const org = await apiCall(server, "POST", "/v1/orgs", bootstrapTokenFromDevVars(), { name: "volumes-e2e" });
  expect(org.status, JSON.stringify(org.json)).toBe(201);
  key = org.json.key.secret;
});

const home = mkdtempSync(path.join(tmpdir(), "lessor-volumes-home-"));

afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
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

    const first = await jobDone("echo training; save /ckpt/model.pt epoch-3 loss-0.12; echo saved");
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

/** `lessor ...args` as a user runs it, with a HOME of its own, the server's URL and the org's key. */
function lessor(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LESSOR_")) env[k] = v;
  Object.assign(env, { HOME: home, NO_COLOR: "1", LESSOR_URL: server.base, LESSOR_API_KEY: key });
  const r = spawnSync(process.execPath, [path.join(repoRoot, "cli", "bin", "lessor.mjs"), ...args], { env, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("lessor volumes", () => {
  it("create, ls, a job that writes with --volume and one that reads, rm", async () => {
    const region = await until("an L4 offer", async () => (await api("GET", "/v1/catalog/offers?gpu=l4&provider=sim")).json.data?.[0]?.region);
    const made = lessor(["volumes", "create", "cli-vol", "--size", "5", "--region", region]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/name:\s+cli-vol/);
    const ls = lessor(["volumes", "ls"]);
    expect(ls.stdout).toMatch(/cli-vol\s+vol_[0-9a-z]+\s+sim\s/);
    const wrote = lessor(["run", "--gpu", "l4", "--volume", "cli-vol:/v", "--", "save /v/f hello-from-cli"]);
    expect(wrote.code, wrote.stderr).toBe(0);
    const read = lessor(["run", "--gpu", "l4", "--volume", "cli-vol:/v", "--", "read /v/f"]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe("hello-from-cli\n");
    const rm = lessor(["volumes", "rm", "cli-vol"]);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toMatch(/cli-vol \(vol_[0-9a-z]+\) deleted/);
    expect(lessor(["volumes", "rm", "cli-vol"]).code).toBe(3);
  });
});
