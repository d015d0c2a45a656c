/**
 * Deployments by name (docs/deployments.md): idempotent PUT under concurrency, a changed
 * configuration with and without `recreate`, stopped and released deployments brought back, the
 * key shown by scope, rotated and printed as shell lines, and bad input refused in the envelope.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { endEverything } from "./deployment-helpers";
import { BOOTSTRAP, call, createKey, expectError, json, type TestOrg } from "./helpers";
import { database } from "../../src/db";
import { newId } from "../../src/ids";
import { createLease } from "../../src/lease/create";
import { events, getLease, leaseSuite, machinesOf, waitFor, waitForState } from "./lease-helpers";

const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
const SPEC = { gpu: "l40s:1" };

let org: TestOrg;
let key: string;
let readKey: string;
leaseSuite((o, k) => {
  org = o;
  key = k;
});
beforeAll(async () => {
  readKey = (await createKey(org, "read")).secret;
});
afterEach(() => endEverything(org, key));

let n = 0;
const fresh = () => `dep-${Date.now().toString(36)}-${n++}`;
const put = (name: string, body: Record<string, unknown>, query = "") => call("PUT", `/v1/deployments/${name}${query}`, { key, body });

async function leasesOfOrg(): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM leases WHERE org_id = ? AND kind = 'deployment'").bind(org.id).first<{ n: number }>();
  return row!.n;
}

describe("PUT /v1/deployments/:name", () => {
  it("creates once: 202 with the deployment, then 200 with the same one", async () => {
    const name = fresh();
    const first = await put(name, { model: MODEL, spec: SPEC });
    expect(first.status).toBe(202);
    const d = await json(first);
    expect(d).toMatchObject({ name, model: MODEL, base_url: `https://lessor.test/v1/gateway/${d.id}/v1` });
    expect(d.id).toMatch(/^dp_/);
    expect(d.lease_id).toMatch(/^ls_/);
    expect(d.api_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await put(name, { model: MODEL.toLowerCase(), spec: SPEC });
    expect(again.status).toBe(200);
    expect(await json(again)).toMatchObject({ id: d.id, lease_id: d.lease_id, api_key: d.api_key });
    const lease = await getLease(key, d.lease_id);
    expect(lease).toMatchObject({ kind: "deployment", state: expect.stringMatching(/^(pending|provisioning|booting)$/) });
    // The machine's own key is a different secret, and the lease never shows it.
    expect(JSON.stringify(lease)).not.toContain(d.api_key);
    expect(lease.env).toEqual([]);
  });

  it("ten concurrent PUTs rent one machine and all answer the same deployment", async () => {
    const name = fresh();
    const before = await leasesOfOrg();
    const answers = await Promise.all(Array.from({ length: 10 }, () => put(name, { model: MODEL, spec: SPEC })));
    const bodies = await Promise.all(answers.map((r) => json(r)));
    expect(answers.filter((r) => r.status === 202)).toHaveLength(1);
    expect(answers.every((r) => r.status === 200 || r.status === 202)).toBe(true);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.lease_id)).size).toBe(1);
    await waitFor("the lease in the index", async () => (await leasesOfOrg()) === before + 1);
    await waitFor("its machine", async () => (await machinesOf(bodies[0].lease_id)).length === 1);
    expect(await leasesOfOrg()).toBe(before + 1);
  });

  it("a changed configuration is 409 config_changed; with recreate it replaces the machine", async () => {
    const name = fresh();
    const d = await json(await put(name, { model: MODEL, spec: SPEC }));
    await expectError(await put(name, { model: MODEL, spec: SPEC, engine_args: ["--max-model-len", "4096"] }), 409, "config_changed");
    await expectError(await put(name, { model: "meta-llama/Llama-3.2-1B-Instruct", spec: SPEC }), 409, "config_changed");
    // The policy is not the machine: a PUT that changes only it finds the deployment.
    expect((await put(name, { model: MODEL, spec: SPEC, policy: { idle_timeout: "1h" } })).status).toBe(200);
    const replaced = await put(name, { model: MODEL, spec: SPEC, engine_args: ["--max-model-len", "4096"] }, "?recreate=true");
    expect(replaced.status).toBe(202);
    const r = await json(replaced);
    expect(r).toMatchObject({ id: d.id, api_key: d.api_key });
    expect(r.lease_id).not.toBe(d.lease_id);
    await waitForState(key, d.lease_id, "released");
    // The same configuration again is found, recreate or not.
    expect((await put(name, { model: MODEL, spec: SPEC, engine_args: ["--max-model-len", "4096"] }, "?recreate=true")).status).toBe(200);
  });

  it("a stopped deployment is started again; a released one is created again, with the same key", async () => {
    const name = fresh();
    const d = await json(await put(name, { model: MODEL, spec: SPEC }));
    await waitForState(key, d.lease_id, "booting");
    expect((await call("POST", `/v1/leases/${d.lease_id}/stop`, { key, body: {} })).status).toBe(200);
    await waitForState(key, d.lease_id, "stopped");
    const started = await put(name, { model: MODEL, spec: SPEC });
    expect(started.status).toBe(202);
    expect(await json(started)).toMatchObject({ lease_id: d.lease_id, state: "starting" });
    expect((await call("POST", `/v1/leases/${d.lease_id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, d.lease_id, "released");
    const again = await put(name, { model: MODEL, spec: SPEC });
    expect(again.status).toBe(202);
    const a = await json(again);
    expect(a).toMatchObject({ id: d.id, api_key: d.api_key });
    expect(a.lease_id).not.toBe(d.lease_id);
  });

  it("refuses bad input in the envelope, renting nothing", async () => {
    await expectError(await put("Bad_Name", { model: MODEL }), 400);
    await expectError(await put(fresh(), { model: "no-such/model" }), 400, "unknown_model");
    await expectError(await put(fresh(), { model: MODEL, cmd: "hang" }), 400);
    await expectError(await put(fresh(), { model: MODEL, engine_args: [""] }), 400);
    // Below the model's VRAM floor: 409 no_placement, naming what fits.
    const below = await put(fresh(), { model: "meta-llama/Llama-3.1-8B-Instruct", spec: { gpu: "t4:1" } });
    expect(below.status).toBe(409);
    const body = await json(below);
    expect(body.error).toMatchObject({ code: "no_placement", details: { reason: "below_vram_floor", asked: "t4:1" } });
    expect(body.error.details.fits.length).toBeGreaterThan(0);
    // A read key may not create.
    await expectError(await call("PUT", `/v1/deployments/${fresh()}`, { key: readKey, body: { model: MODEL, spec: SPEC } }), 403, "insufficient_scope");
  });

  it("a create its lease refuses leaves no deployment behind", async () => {
    const name = fresh();
    await expectError(await put(name, { model: MODEL, spec: { gpu: "l40s:1", max_hourly_usd: 0.0001 } }), 409, "no_capacity");
    await expectError(await call("GET", `/v1/deployments/${name}`, { key }), 404, "not_found");
    expect((await put(name, { model: MODEL, spec: SPEC })).status).toBe(202);
  });
});

describe("the deployment's lease carries its name", () => {
  const named = async (leaseId: string) => (await getLease(key, leaseId)).name;
  const byName = async (name: string) => (await json(await call("GET", `/v1/leases?name=${name}`, { key }))).data.map((l: any) => l.id);

  it("its lease is named after it, and found by that name", async () => {
    const name = fresh();
    const d = await json(await put(name, { model: MODEL, spec: SPEC }));
    expect(await named(d.lease_id)).toBe(name);
    expect(await byName(name)).toEqual([d.lease_id]);
  });

  it("recreated, the new lease takes the name while the old one is still releasing", async () => {
    const name = fresh();
    const d = await json(await put(name, { model: MODEL, spec: SPEC }));
    const r = await json(await put(name, { model: MODEL, spec: SPEC, engine_args: ["--max-model-len", "4096"] }, "?recreate=true"));
    expect(r.lease_id).not.toBe(d.lease_id);
    expect(await named(r.lease_id)).toBe(name);
    const holder = async () => (await env.DB.prepare("SELECT lease_id FROM lease_names WHERE org_id = ? AND name = ?").bind(org.id, name).first<{ lease_id: string }>())?.lease_id;
    expect(await holder()).toBe(r.lease_id);
    // The old lease's release frees nothing: the name stays the new lease's.
    await waitForState(key, d.lease_id, "released");
    expect(await holder()).toBe(r.lease_id);
    expect(await byName(name)).toContain(r.lease_id);
    // And a lease the org makes with that name is refused while the deployment holds it.
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC, policy: { ttl: "1h" }, name } }), 409, "name_taken");
  });

  it("deleted and put again at once, the new lease is named too", async () => {
    const name = fresh();
    await json(await put(name, { model: MODEL, spec: SPEC }));
    expect((await call("DELETE", `/v1/deployments/${name}`, { key })).status).toBe(200);
    const again = await json(await put(name, { model: MODEL, spec: SPEC }));
    expect(await named(again.lease_id)).toBe(name);
  });

  it("a name another live lease of the org holds leaves the deployment's lease unnamed, not refused", async () => {
    const name = fresh();
    const mine = await json(await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC, policy: { ttl: "1h" }, name } }));
    const res = await put(name, { model: MODEL, spec: SPEC });
    expect(res.status).toBe(202);
    expect(await named((await json(res)).lease_id)).toBeNull();
    expect(await byName(name)).toEqual([mine.id]);
  });
});

describe("reading, listing, keys and deleting", () => {
  it("GET shows the key to write scope only; list pages by name", async () => {
    const names = [fresh(), fresh()];
    const made = await Promise.all(names.map(async (name) => json(await put(name, { model: MODEL, spec: SPEC }))));
    const withKey = await json(await call("GET", `/v1/deployments/${names[0]}`, { key }));
    expect(withKey.api_key).toBe(made[0].api_key);
    const withoutKey = await json(await call("GET", `/v1/deployments/${names[0]}`, { key: readKey }));
    expect(withoutKey).toMatchObject({ id: made[0].id, api_key: null });
    const page = await json(await call("GET", "/v1/deployments?limit=1", { key: readKey }));
    expect(page.data).toHaveLength(1);
    expect(page.next_cursor).toEqual(expect.any(String));
    const all: any[] = [];
    for (let cursor: string | null = null; ; ) {
      const p: any = await json(await call("GET", `/v1/deployments?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key }));
      all.push(...p.data);
      cursor = p.next_cursor;
      if (!cursor) break;
    }
    const listed = all.map((d) => d.name);
    expect(listed).toEqual([...listed].sort());
    expect(listed).toEqual(expect.arrayContaining(names));
    await expectError(await call("GET", "/v1/deployments/nobody-here", { key }), 404, "not_found");
  });

  it("rotate-key gives a new key; env prints it as export lines", async () => {
    const name = fresh();
    const d = await json(await put(name, { model: MODEL, spec: SPEC }));
    const rotated = await json(await call("POST", `/v1/deployments/${name}/rotate-key`, { key }));
    expect(rotated.api_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.api_key).not.toBe(d.api_key);
    const res = await call("GET", `/v1/deployments/${name}/env`, { key });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(
      `export OPENAI_BASE_URL='https://lessor.test/v1/gateway/${d.id}/v1'\nexport OPENAI_API_KEY='${rotated.api_key}'\nexport LESSOR_MODEL_ID='${MODEL}'\n`,
    );
    await expectError(await call("GET", `/v1/deployments/${name}/env`, { key: readKey }), 403, "insufficient_scope");
  });

  it("DELETE ends the lease and forgets the name", async () => {
    const name = fresh();
    const d = await json(await put(name, { model: MODEL, spec: SPEC }));
    expect((await call("DELETE", `/v1/deployments/${name}`, { key })).status).toBe(200);
    await waitForState(key, d.lease_id, "released");
    await expectError(await call("GET", `/v1/deployments/${name}`, { key }), 404, "not_found");
    await expectError(await call("DELETE", `/v1/deployments/${name}`, { key }), 404, "not_found");
  });
});

describe("ready means the model answers", () => {
  /** A deployment lease made directly, so that its model server can misbehave on purpose. */
  async function modelLease(model: { key: string }, extra: { cmd?: string; policy?: Record<string, string> } = {}) {
    const id = newId("ls");
    await createLease(database(env.DB), env, org.id, { kind: "deployment", spec: SPEC, id, model: { id: MODEL, engine_args: [], ...model }, ...extra }, Date.now());
    return id;
  }

  it("a deployment becomes ready once its model server lists the model with the machine's key", async () => {
    const name = fresh();
    const d = await json(await put(name, { model: MODEL, spec: SPEC }));
    await waitForState(key, d.lease_id, "ready");
    expect(await json(await call("GET", `/v1/deployments/${name}`, { key }))).toMatchObject({ state: "ready", hourly_usd: expect.any(Number) });
    const kinds = (await events(key, d.lease_id)).map((e) => e.type);
    expect(kinds.indexOf("ready")).toBeGreaterThan(kinds.indexOf("machine_created"));
  });

  it("a server that answers without its key fails closed: endpoint_exposed", async () => {
    // A machine without LESSOR_MODEL_KEY answers anyone (the sim's model server, like vLLM without --api-key).
    const id = await modelLease({ key: "" });
    const released = await waitForState(key, id, "released");
    expect(released.release_reason).toBe("endpoint_exposed");
    expect(released.ready_at).toBeNull();
  });

  it("a server that never answers is released at startup_timeout", async () => {
    const id = await modelLease({ key: "machine-key-0123456789" }, { cmd: `sleep 3600; serve ${MODEL}`, policy: { startup_timeout: "2s" } });
    const released = await waitForState(key, id, "released", 20_000);
    expect(released.release_reason).toBe("startup_timeout");
    expect(released.ready_at).toBeNull();
  });

  it("a server that exits while starting fails the lease at once, with its log's last 30 lines", async () => {
    const id = await modelLease({ key: "machine-key-0123456789" }, { cmd: "lines 40 loading; exit 3" });
    const released = await waitForState(key, id, "released", 20_000);
    expect(released.release_reason).toBe("model_server_failed");
    const requested = (await events(key, id)).find((e) => e.type === "release_requested");
    expect(requested.detail).toMatchObject({ exit_code: 3 });
    const tail = requested.detail.log_tail.trimEnd().split("\n");
    expect(tail).toHaveLength(30);
    expect(requested.detail.log_tail_cut).toBe(true);
    expect(JSON.stringify(requested)).not.toContain("machine-key-0123456789");
  });

  it("a server that dies while starting with a 16 MiB log without newlines is released model_server_failed, within its startup timeout", async () => {
    // Still booting: the machine runs, its model server never answers (and the startup timeout is far off).
    const id = await modelLease({ key: "machine-key-0123456789" }, { cmd: `sleep 3600; serve ${MODEL}`, policy: { startup_timeout: "50s" } });
    await waitFor("the machine running", async () => (await getLease(key, id)).machine?.status === "running");
    // From here the test is the machine's agent: a new token, so the sim's own calls are refused.
    const minted = await call("POST", `/v1/sim/leases/${id}/agent-token`, { key: BOOTSTRAP });
    expect(minted.status).toBe(201);
    const token = (await json(minted)).token as string;
    // A progress bar redraws one line with `\r`: 16 MiB of it is one line. Sent to the lease's
    // object as the sim's agent sends it (the route's byte budget, 8 MiB a minute, would take two).
    const frame = "\rDownloading weights: [##########----------] 50%";
    const MiB = 1024 * 1024;
    const chunk = frame.repeat(Math.ceil(MiB / frame.length)).slice(0, MiB);
    const stub = env.LEASE.get(env.LEASE.idFromName(id));
    for (let seq = 0; seq < 16; seq++) {
      expect(await stub.agentCall(token, { op: "log", seq, data: new TextEncoder().encode(chunk) })).toMatchObject({ ok: true, stored: true });
    }
    expect((await call("POST", "/v1/agent/exit", { key: token, body: { code: 1, signal: null }, headers: { "lessor-lease-id": id } })).status).toBe(200);
    const released = await waitForState(key, id, "released", 40_000);
    expect(released.release_reason).toBe("model_server_failed");
    const requested = (await events(key, id)).find((e) => e.type === "release_requested");
    expect(requested.detail).toMatchObject({ exit_code: 1, log_tail_cut: true });
    expect(new TextEncoder().encode(requested.detail.log_tail).byteLength).toBeLessThanOrEqual(8 * 1024);
    expect(chunk.endsWith(requested.detail.log_tail)).toBe(true);
  });

  it("a release that cannot be written backs off, each failure counting, and the startup timeout still ends the lease", async () => {
    const id = await modelLease({ key: "machine-key-0123456789" }, { cmd: `sleep 3600; serve ${MODEL}`, policy: { startup_timeout: "10s" } });
    await waitFor("the machine running", async () => (await getLease(key, id)).machine?.status === "running");
    // The lease's own storage refuses the event of the release the model server's failure asks
    // for, as it refused one 16 MiB long; every other write lands.
    await runInDurableObject(env.LEASE.get(env.LEASE.idFromName(id)), (_o, state) =>
      void state.storage.sql.exec(
        `CREATE TRIGGER refuse_failed_release BEFORE INSERT ON events WHEN NEW.reason = 'model_server_failed' BEGIN SELECT RAISE(ABORT, 'test: this write is refused'); END`,
      ),
    );
    const minted = await call("POST", `/v1/sim/leases/${id}/agent-token`, { key: BOOTSTRAP });
    const token = (await json(minted)).token as string;
    const exited = await call("POST", "/v1/agent/exit", { key: token, body: { code: 1, signal: null }, headers: { "lessor-lease-id": id } });
    expect(exited.status).toBe(200);
    const released = await waitForState(key, id, "released", 40_000);
    expect(released.release_reason).toBe("startup_timeout");
    // 1 s, 2 s, 4 s... (each with up to 250 ms of jitter): the backoff did not start over at each failed write.
    const waits = (await events(key, id)).filter((e) => e.type === "release_failed").map((e) => e.detail.retry_in_ms as number);
    expect(waits.length).toBeGreaterThanOrEqual(3);
    waits.forEach((w, i) => expect(w, `wait ${i}: ${waits.join(", ")}`).toBeGreaterThanOrEqual(1000 * 2 ** i));
  });
});
