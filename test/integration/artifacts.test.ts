/**
 * Data in and out (docs/artifacts.md), in the Workers pool against the real R2 binding: bundles,
 * the agent's artifact uploads (one PUT and in parts, resumed), the user's reads (Range) and
 * deletes, every bad input of "Bad input" as a 4xx that stores nothing and loses nothing, the caps
 * and the org's quota, the outputs events, retention and usage's storage_gb_month.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../functions/index";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PART_SIZE } from "../../src/artifacts/limits";
import { runStorageRetention } from "../../src/artifacts/store";
import { toHex } from "../../src/ids";
import { BASE, BOOTSTRAP, call, checkAnswer, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, fastSim, getLease, waitFor, waitForState } from "./lease-helpers";

let org: TestOrg;
let key: string;
let other: TestOrg;

beforeAll(async () => {
  org = await createOrg();
  key = (await createKey(org, "write")).secret;
  other = await createOrg();
  await refreshCatalog();
});

beforeEach(async () => {
  await fastSim();
});

const SPEC = { gpu: "l40s:1" };

async function sha(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

function bytesOf(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >> 16;
  }
  return out;
}

/** A raw request through the runtime, its answer checked against the document. */
async function send(method: string, path: string, headers: Record<string, string>, body?: Uint8Array | string): Promise<Response> {
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body });
  await checkAnswer(method, path, res);
  return res;
}

async function upload(bytes: Uint8Array, opts: { key?: string; digest?: string; length?: string; type?: string } = {}) {
  return send("POST", "/v1/uploads", {
    authorization: `Bearer ${opts.key ?? key}`,
    "content-type": opts.type ?? "application/gzip",
    "content-length": opts.length ?? String(bytes.byteLength),
    "lessor-sha256": opts.digest ?? (await sha(bytes)),
  }, bytes);
}

async function r2Keys(prefix: string): Promise<string[]> {
  return (await env.ARTIFACTS.list({ prefix })).objects.map((o) => o.key);
}

const orgStorage = async (orgId: string) => (await env.DB.prepare(`SELECT used_bytes FROM org_storage WHERE org_id = ?`).bind(orgId).first<number>("used_bytes")) ?? 0;

interface AgentLease {
  id: string;
  token: string;
}

/** A ready job of `owner`'s (the sim as its agent until the test mints its own token). */
async function agentLease(body: Record<string, unknown> = {}, leaseKey = key): Promise<AgentLease> {
  const lease = await createLease(leaseKey, { kind: "job", cmd: "hang", spec: SPEC, policy: { on_exit: "keep" }, ...body });
  await waitForState(leaseKey, lease.id, "ready");
  const res = await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP });
  expect(res.status).toBe(201);
  return { id: lease.id, token: (await json(res)).token };
}

const agentHeaders = (l: AgentLease) => ({ authorization: `Bearer ${l.token}`, "lessor-lease-id": l.id });

async function putFile(l: AgentLease, path: string, bytes: Uint8Array, digest?: string) {
  return send("PUT", `/v1/agent/artifacts/${path}`, {
    ...agentHeaders(l),
    "content-type": "application/octet-stream",
    "content-length": String(bytes.byteLength),
    "lessor-sha256": digest ?? (await sha(bytes)),
  }, bytes);
}

const readArtifact = (id: string, path: string, headers: Record<string, string> = {}, k = key) =>
  send("GET", `/v1/leases/${id}/artifacts/${path}`, { authorization: `Bearer ${k}`, ...headers });

describe("bundles", () => {
  it("stores a bundle whose digest matches and answers it; refuses a mismatch, a wrong type and one over the limit, storing nothing", async () => {
    const bytes = bytesOf(3000);
    const res = await upload(bytes);
    expect(res.status).toBe(201);
    const up = await json(res);
    expect(up).toMatchObject({ size: 3000, sha256: await sha(bytes) });
    expect(up.id).toMatch(/^upl_/);
    expect(await json(await call("GET", `/v1/uploads/${up.id}`, { key }))).toEqual(up);
    await expectError(await call("GET", `/v1/uploads/${up.id}`, { key: other.adminKey }), 404, "not_found");
    const before = await r2Keys(`orgs/${org.id}/uploads/`);
    const used = await orgStorage(org.id);

    await expectError(await upload(bytes, { digest: "0".repeat(64) }), 400, "checksum_mismatch");
    await expectError(await upload(bytes, { type: "text/plain" }), 415, "unsupported_media_type");
    await expectError(await upload(bytes, { length: String(200 * 1024 * 1024) }), 413, "upload_too_large");
    await expectError(await upload(bytes, { digest: "nothex" }), 400, "invalid_request");
    expect(await r2Keys(`orgs/${org.id}/uploads/`)).toEqual(before);
    expect(await orgStorage(org.id)).toBe(used);
  });

  it("a lease takes a bundle of its org's as its workdir, and the agent fetches it; another org's or a deployment's is refused", async () => {
    const bytes = bytesOf(5000, 7);
    const up = await json(await upload(bytes));
    await expectError(await call("POST", "/v1/leases", { key: other.adminKey, body: { kind: "job", cmd: "hang", spec: SPEC, workdir: up.id } }), 404, "not_found");
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "deployment", spec: SPEC, workdir: up.id } }), 400);
    const l = await agentLease({ workdir: up.id });
    const res = await send("GET", "/v1/agent/workdir", agentHeaders(l));
    expect(res.status).toBe(200);
    expect(res.headers.get("lessor-sha256")).toBe(up.sha256);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    const none = await agentLease();
    await expectError(await send("GET", "/v1/agent/workdir", agentHeaders(none)), 404, "no_workdir");
  });
});

describe("bodies that break off", () => {
  it("a bundle or a file whose upload breaks off answers 400, stores nothing and gives its bytes back", async () => {
    const l = await agentLease();
    const used = await orgStorage(org.id);
    const breaking = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new Uint8Array(100));
          c.error(new Error("the client went away mid-upload"));
        },
      });
    for (const [path, headers] of [
      ["/v1/uploads", { authorization: `Bearer ${key}`, "content-type": "application/gzip" }],
      ["/v1/agent/artifacts/broken.bin", agentHeaders(l)],
    ] as const) {
      const ctx = createExecutionContext();
      const req = new Request(`${BASE}${path}`, { method: path === "/v1/uploads" ? "POST" : "PUT", headers: { ...headers, "content-length": "1000", "lessor-sha256": "a".repeat(64) }, body: breaking() });
      const res = await worker.fetch(req, env, ctx);
      await waitOnExecutionContext(ctx);
      await expectError(res, 400, "invalid_request");
    }
    expect(await orgStorage(org.id)).toBe(used);
    expect(await r2Keys(`orgs/${org.id}/leases/${l.id}/`)).toEqual([]);
  });
});

describe("artifacts", () => {
  it("stores a file, lists it, reads it whole and by range, and deletes it", async () => {
    const l = await agentLease();
    const bytes = bytesOf(10_000, 3);
    const res = await putFile(l, "out/metrics.json", bytes);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ path: "out/metrics.json", size: 10_000, sha256: await sha(bytes), expires_at: null });

    const list = await json(await call("GET", `/v1/leases/${l.id}/artifacts`, { key }));
    expect(list.data.map((a: any) => a.path)).toEqual(["out/metrics.json"]);

    const whole = await readArtifact(l.id, "out/metrics.json");
    expect(whole.status).toBe(200);
    expect(whole.headers.get("lessor-sha256")).toBe(await sha(bytes));
    expect(whole.headers.get("etag")).toBe(`"${await sha(bytes)}"`);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes);

    const part = await readArtifact(l.id, "out/metrics.json", { range: "bytes=100-199" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 100-199/10000");
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(100, 200));
    const tail = await readArtifact(l.id, "out/metrics.json", { range: "bytes=-10" });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(-10));
    const past = await readArtifact(l.id, "out/metrics.json", { range: "bytes=10000-" });
    await expectError(past, 416, "range_not_satisfiable");
    expect(past.headers.get("content-range")).toBe("bytes */10000");

    // Another org: 404, exactly as a lease that does not exist.
    await expectError(await readArtifact(l.id, "out/metrics.json", {}, other.adminKey), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/${l.id}/artifacts`, { key: other.adminKey }), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/ls_00000000000000000000000000/artifacts`, { key }), 404, "not_found");

    const used = await orgStorage(org.id);
    expect((await send("DELETE", `/v1/leases/${l.id}/artifacts/out/metrics.json`, { authorization: `Bearer ${key}` })).status).toBe(204);
    expect(await orgStorage(org.id)).toBe(used - 10_000);
    expect(await r2Keys(`orgs/${org.id}/leases/${l.id}/`)).toEqual([]);
    await expectError(await readArtifact(l.id, "out/metrics.json"), 404, "not_found");
  });

  it("refuses every bad input with a 4xx, stores nothing and loses nothing stored before", async () => {
    const l = await agentLease();
    const first = bytesOf(1000, 11);
    expect((await putFile(l, "a.txt", first)).status).toBe(200);
    const keys = await r2Keys(`orgs/${org.id}/leases/${l.id}/`);
    const used = await orgStorage(org.id);

    // A digest that does not match: the version before stays.
    await expectError(await putFile(l, "a.txt", bytesOf(1000, 12), await sha(first)), 400, "checksum_mismatch");
    // A URL's own `..` and `.` segments never reach lessor (the URL is normalized first): they are
    // sent inside one segment, as %2F.
    for (const bad of ["..%2Fescape", "x%2F..%2F..%2Fy", "%2Fabs", "a%00b", "a%5Cb", "a//b", ".%2Fa", "a%2F.", "a%0Ab"]) {
      await expectError(await putFile(l, bad, first), 400, "invalid_path").catch((e) => {
        throw new Error(`${bad}: ${e}`);
      });
    }
    await expectError(await putFile(l, "big.bin", bytesOf(16), undefined).then(() => send("PUT", "/v1/agent/artifacts/big.bin", {
      ...agentHeaders(l), "content-length": String(PART_SIZE + 1), "lessor-sha256": "0".repeat(64),
    }, new Uint8Array(0))), 413, "payload_too_large");
    await expectError(await send("PUT", "/v1/agent/outputs", { ...agentHeaders(l), "content-type": "application/json" }, JSON.stringify({ files: [{ path: "../x", size: 1, sha256: "0".repeat(64) }] })), 400, "invalid_path");

    // Another lease's token: 401.
    const otherLease = await agentLease();
    await expectError(await send("PUT", `/v1/agent/artifacts/a.txt`, {
      authorization: `Bearer ${otherLease.token}`, "lessor-lease-id": l.id, "content-length": "1000", "lessor-sha256": await sha(first),
    }, first), 401, "unauthenticated");

    const read = await readArtifact(l.id, "a.txt");
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(first);
    // big.bin went up (16 bytes) above; nothing else was added.
    expect((await r2Keys(`orgs/${org.id}/leases/${l.id}/`)).length).toBe(keys.length + 1);
    expect(await orgStorage(org.id)).toBe(used + 16);

    // After the release: 410 to the agent.
    expect((await call("POST", `/v1/leases/${l.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, l.id, "released");
    await expectError(await putFile(l, "late.txt", first), 410, "lease_released");
    expect((await readArtifact(l.id, "a.txt")).status).toBe(200);
  });

  it("goes up in parts above the part size, resumes from the parts listed, and checks the whole file", async () => {
    const l = await agentLease();
    const bytes = bytesOf(PART_SIZE + 4096, 5);
    const digest = await sha(bytes);
    const post = (q: string, body: unknown) => send("POST", `/v1/agent/artifacts/ckpt/model.bin?${q}`, { ...agentHeaders(l), "content-type": "application/json" }, JSON.stringify(body));
    const created = await post("uploads", { size: bytes.byteLength, sha256: digest });
    expect(created.status).toBe(201);
    const up = await json(created);
    expect(up).toMatchObject({ parts: 2, part_size: PART_SIZE, stored: [] });
    const putPart = async (n: number, chunk: Uint8Array, d?: string) =>
      send("PUT", `/v1/agent/artifacts/ckpt/model.bin?upload_id=${up.upload_id}&part=${n}`, {
        ...agentHeaders(l), "content-length": String(chunk.byteLength), "lessor-sha256": d ?? (await sha(chunk)),
      }, chunk);
    const one = bytes.slice(0, PART_SIZE);
    const two = bytes.slice(PART_SIZE);
    await expectError(await putPart(2, one), 400, "invalid_part");
    await expectError(await putPart(1, one, "0".repeat(64)), 400, "checksum_mismatch");
    expect((await putPart(1, one)).status).toBe(200);
    await expectError(await post(`upload_id=${up.upload_id}&complete`, { size: bytes.byteLength, sha256: digest }), 409, "parts_missing");
    // A restarted agent asks what is stored and goes on from there.
    const listed = await json(await send("GET", `/v1/agent/artifacts/ckpt/model.bin?upload_id=${up.upload_id}`, agentHeaders(l)));
    expect(listed.stored.map((p: any) => p.part)).toEqual([1]);
    expect((await putPart(2, two)).status).toBe(200);
    const done = await post(`upload_id=${up.upload_id}&complete`, { size: bytes.byteLength, sha256: digest });
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({ path: "ckpt/model.bin", size: bytes.byteLength, sha256: digest });
    const read = await readArtifact(l.id, "ckpt/model.bin");
    expect(await sha(new Uint8Array(await read.arrayBuffer()))).toBe(digest);
  });

  it("holds a lease to its cap and an org to its quota (409), leaving another org untouched", async () => {
    const l = await agentLease();
    const bytes = bytesOf(100, 9);
    await env.DB.prepare(`INSERT INTO lease_storage (lease_id, org_id, used_bytes) VALUES (?, ?, ?) ON CONFLICT (lease_id) DO UPDATE SET used_bytes = excluded.used_bytes`)
      .bind(l.id, org.id, 50 * 1024 ** 3 - 50)
      .run();
    await expectError(await putFile(l, "over.bin", bytes), 413, "lease_artifacts_full");
    await env.DB.prepare(`UPDATE lease_storage SET used_bytes = 0 WHERE lease_id = ?`).bind(l.id).run();

    const full = await createOrg();
    const fullKey = (await createKey(full, "write")).secret;
    await env.DB.prepare(`INSERT INTO org_storage (org_id, used_bytes) VALUES (?, ?)`).bind(full.id, 100 * 1024 ** 3 - 10).run();
    const refused = await upload(bytes, { key: fullKey });
    expect(refused.status).toBe(409);
    const refusal = await json(refused);
    expect(refusal.error.code).toBe("storage_quota_exceeded");
    expect(refusal.error.details).toMatchObject({ limit_bytes: 100 * 1024 ** 3, used_bytes: 100 * 1024 ** 3 - 10 });
    expect(await r2Keys(`orgs/${full.id}/`)).toEqual([]);
    expect((await upload(bytes)).status).toBe(201);
    expect((await putFile(l, "fits.bin", bytes)).status).toBe(200);
  });
});

describe("outputs, retention and usage", () => {
  it("tells outputs_uploaded when the manifest is stored, outputs_incomplete at a release without it", async () => {
    const a = await agentLease();
    const f = bytesOf(64, 2);
    const manifest = (l: AgentLease, files: unknown[]) => send("PUT", "/v1/agent/outputs", { ...agentHeaders(l), "content-type": "application/json" }, JSON.stringify({ files }));
    expect(await json(await manifest(a, [{ path: "r.txt", size: 64, sha256: await sha(f) }]))).toEqual({ files: 1, bytes: 64, missing_count: 1 });
    await putFile(a, "r.txt", f);
    await waitFor("outputs_uploaded", async () => (await events(key, a.id)).find((e) => e.type === "outputs_uploaded"));
    expect((await events(key, a.id)).find((e) => e.type === "outputs_uploaded").detail).toEqual({ files: 1, bytes: 64 });

    const b = await agentLease();
    await manifest(b, [{ path: "x.txt", size: 64, sha256: await sha(f) }, { path: "y.txt", size: 1, sha256: "a".repeat(64) }]);
    await putFile(b, "x.txt", f);
    expect((await call("POST", `/v1/leases/${b.id}/end`, { key, body: {} })).status).toBe(200);
    const incomplete = await waitFor("outputs_incomplete", async () => (await events(key, b.id)).find((e) => e.type === "outputs_incomplete"));
    expect(incomplete.detail).toEqual({ missing: ["y.txt"], missing_count: 1, files: 2, bytes: 65 });
  });

  const manifestOf = (l: AgentLease, files: unknown[]) => send("PUT", "/v1/agent/outputs", { ...agentHeaders(l), "content-type": "application/json" }, JSON.stringify({ files }));
  /** What agent.sh does while its command runs: heartbeats, and polls saying it can collect. */
  const alive = async (l: AgentLease) => {
    expect((await send("POST", "/v1/agent/heartbeat", agentHeaders(l))).status).toBe(200);
    return json(await send("GET", "/v1/agent/commands?wait=0&collect=1", agentHeaders(l)));
  };

  it("an end while the agent uploads waits for the outputs: the collect comes, the files land, outputs_uploaded, then released", async () => {
    const l = await agentLease({ policy: { on_exit: "keep", outputs_wait: "1m" } });
    const [f, g] = [bytesOf(64, 3), bytesOf(128, 4)];
    await alive(l);
    await manifestOf(l, [{ path: "a.bin", size: 64, sha256: await sha(f) }, { path: "b.bin", size: 128, sha256: await sha(g) }]);
    await putFile(l, "a.bin", f);
    expect((await call("POST", `/v1/leases/${l.id}/end`, { key, body: {} })).status).toBe(200);
    const requested = await waitFor("outputs_requested", async () => (await events(key, l.id)).find((e) => e.type === "outputs_requested"));
    // The agent's next poll carries the collect; the release holds meanwhile.
    const { commands } = await json(await send("GET", "/v1/agent/commands?wait=5&collect=1", agentHeaders(l)));
    expect(commands).toEqual([{ id: requested.detail.command_id, kind: "collect", signal: null, cmd_base64: null }]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await getLease(key, l.id)).state).toBe("releasing");
    expect((await getLease(key, l.id)).guard).toMatchObject({ action: "release", due: false, at: requested.detail.until });
    expect((await putFile(l, "b.bin", g)).status).toBe(200);
    const answered = await send("POST", `/v1/agent/commands/${requested.detail.command_id}`, { ...agentHeaders(l), "content-type": "application/json" }, JSON.stringify({ exit_code: 0, output: "" }));
    expect(answered.status).toBe(200);
    const released = await waitForState(key, l.id, "released");
    expect(Date.parse(released.released_at)).toBeLessThan(Date.parse(requested.detail.until));
    const types = (await events(key, l.id)).map((e) => e.type);
    expect(types.indexOf("outputs_requested")).toBeLessThan(types.indexOf("outputs_uploaded"));
    expect(types.indexOf("outputs_uploaded")).toBeLessThan(types.indexOf("released"));
    expect(types).not.toContain("outputs_incomplete");
    expect(new Uint8Array(await (await readArtifact(l.id, "b.bin")).arrayBuffer())).toEqual(g);
  });

  it("an end with an agent that never answers is released at the bound, outputs_incomplete naming what is missing", async () => {
    const l = await agentLease({ policy: { on_exit: "keep", outputs_wait: "2s" } });
    const f = bytesOf(64, 5);
    await alive(l);
    await manifestOf(l, [{ path: "done.bin", size: 64, sha256: await sha(f) }, { path: "lost.bin", size: 9, sha256: "b".repeat(64) }]);
    await putFile(l, "done.bin", f);
    expect((await call("POST", `/v1/leases/${l.id}/end`, { key, body: {} })).status).toBe(200);
    const requested = await waitFor("outputs_requested", async () => (await events(key, l.id)).find((e) => e.type === "outputs_requested"));
    const released = await waitForState(key, l.id, "released");
    expect(Date.parse(released.released_at)).toBeGreaterThanOrEqual(Date.parse(requested.detail.until));
    const incomplete = await waitFor("outputs_incomplete", async () => (await events(key, l.id)).find((e) => e.type === "outputs_incomplete"));
    expect(incomplete.detail).toEqual({ missing: ["lost.bin"], missing_count: 1, files: 2, bytes: 73 });

    // No manifest at all: the event says so.
    const m = await agentLease({ policy: { on_exit: "keep", outputs_wait: "1s" } });
    await alive(m);
    expect((await call("POST", `/v1/leases/${m.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, m.id, "released");
    const none = await waitFor("outputs_incomplete", async () => (await events(key, m.id)).find((e) => e.type === "outputs_incomplete"));
    expect(none.detail).toEqual({ missing: [], missing_count: 0, files: 0, bytes: 0, manifest: false });
  });

  it("an agent that never said it collects (silent, or an older agent) is released at once, as before", async () => {
    const l = await agentLease({ policy: { on_exit: "keep", outputs_wait: "1h" } });
    expect((await send("POST", "/v1/agent/heartbeat", agentHeaders(l))).status).toBe(200);
    expect((await call("POST", `/v1/leases/${l.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, l.id, "released", 5_000);
    expect((await events(key, l.id)).map((e) => e.type)).not.toContain("outputs_requested");
  });

  it("deletes a released lease's artifacts after the org's retention, and bundles past their time, giving the bytes back", async () => {
    const owner = await createOrg();
    const ownerKey = (await createKey(owner, "write")).secret;
    expect((await call("PUT", "/v1/org/settings", { key: owner.adminKey, body: { artifact_retention: "1s" } })).status).toBe(200);
    const l = await agentLease({}, ownerKey);
    expect((await putFile(l, "keep.bin", bytesOf(2048, 4))).status).toBe(200);
    const up = await json(await upload(bytesOf(512, 8), { key: ownerKey }));
    expect(await orgStorage(owner.id)).toBe(2048 + 512);

    // Nothing is due while the lease is live and the bundle fresh.
    await runStorageRetention(env, Date.now());
    expect((await r2Keys(`orgs/${owner.id}/`)).length).toBe(2);

    expect((await call("POST", `/v1/leases/${l.id}/end`, { key: ownerKey, body: {} })).status).toBe(200);
    await waitForState(ownerKey, l.id, "released");
    const stamped = await runStorageRetention(env, Date.now());
    expect(stamped.leases_stamped).toBe(1);
    const listed = await json(await call("GET", `/v1/leases/${l.id}/artifacts`, { key: ownerKey }));
    expect(listed.data[0].expires_at).not.toBeNull();
    const report = await runStorageRetention(env, Date.now() + 2 * 86_400_000);
    expect(report.artifacts_deleted).toBeGreaterThanOrEqual(1);
    expect(report.uploads_deleted).toBeGreaterThanOrEqual(1);
    expect(await r2Keys(`orgs/${owner.id}/`)).toEqual([]);
    expect(await orgStorage(owner.id)).toBe(0);
    await expectError(await call("GET", `/v1/uploads/${up.id}`, { key: ownerKey }), 404, "not_found");
    // What was kept still counts in usage, as GB-months.
    const usage = await json(await call("GET", "/v1/usage", { key: ownerKey }));
    expect(usage.totals.storage_gb_month).toBeGreaterThanOrEqual(0);
    expect(typeof usage.totals.storage_gb_month).toBe("number");
  });

  it("counts storage in usage as GB-months", async () => {
    const owner = await createOrg();
    const ownerKey = (await createKey(owner, "write")).secret;
    const now = Date.now();
    // 1 GiB kept for 30 days, ended an hour ago: one GB-month.
    await env.DB.prepare(`INSERT INTO storage_spans (org_id, bytes, from_at, to_at) VALUES (?, ?, ?, ?)`).bind(owner.id, 2 ** 30, now - 3_600_000 - 30 * 86_400_000, now - 3_600_000).run();
    const from = new Date(now - 40 * 86_400_000).toISOString();
    const usage = await json(await call("GET", `/v1/usage?from=${from}`, { key: ownerKey }));
    expect(usage.totals.storage_gb_month).toBeCloseTo(1, 5);
  });
});
