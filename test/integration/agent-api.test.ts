/**
 * `/v1/agent/*` in the Workers pool (docs/agent.md): every route's happy path; the lease token is
 * accepted for its own lease only, only there, and no API key is; a chunk is stored once and
 * capped; after release every call is 410; nothing answers 500.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../functions/index";
import { beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { AGENT_SCRIPT } from "../../src/agent/script";
import type { LeaseObject } from "../../src/lease/object";
import type { AgentSnapshot } from "../../src/occupant/occupant";
import { LOG_CAP_BYTES, LOG_CHUNK_MAX_BYTES, droppedMarker } from "../../src/occupant/logs";
import { STUB_API_KEYS, stubCloudAdmin } from "../support/stub-clouds-admin";
import { BASE, BOOTSTRAP, call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, getLease, waitForState } from "./lease-helpers";

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
const stubs = inject("stubClouds");
const stubOf = (id: string) => env.LEASE.get(env.LEASE.idFromName(id));

/** A ready lease of `owner`'s with a fresh token, minted through the test-only sim route. */
async function leaseWithToken(owner = org, ownerKey = key): Promise<{ id: string; token: string }> {
  const leaseKey = owner === org ? ownerKey : owner.adminKey;
  const lease = await createLease(leaseKey, { kind: "job", cmd: "hang", spec: SPEC, policy: { on_exit: "keep" } });
  // Provisioning mints the machine's own token (the one before stops working), so the test's
  // token is minted once the machine exists.
  await waitForState(leaseKey, lease.id, "ready");
  const res = await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP });
  expect(res.status).toBe(201);
  const { token } = await json(res);
  return { id: lease.id, token };
}

/** An agent call: the token as bearer, the lease in Lessor-Lease-Id. */
function agent(method: string, path: string, lease: { id: string; token: string }, opts: { body?: unknown; raw?: string; headers?: Record<string, string>; unchecked?: string } = {}) {
  return call(method, `/v1/agent${path}`, { key: lease.token, ...opts, headers: { "lessor-lease-id": lease.id, ...opts.headers } });
}

const logChunk = (lease: { id: string; token: string }, seq: number | string, text: string, headers: Record<string, string> = {}) =>
  agent("POST", "/logs", lease, { raw: text, headers: { "content-type": "text/plain", "lessor-log-seq": String(seq), ...headers } });

async function snapshot(id: string) {
  const res = await call("GET", `/v1/sim/leases/${id}/agent`, { key: BOOTSTRAP });
  expect(res.status).toBe(200);
  return json(res);
}

describe("GET /v1/agent/agent.sh", () => {
  it("serves the script without a credential, and it holds no secret", async () => {
    const res = await call("GET", "/v1/agent/agent.sh");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/x-shellscript");
    const text = await res.text();
    expect(text).toBe(AGENT_SCRIPT);
    expect(text.startsWith("#!/bin/sh\n")).toBe(true);
    expect(text).not.toMatch(/lsl_[0-9A-Za-z]{43}|lsr_[0-9A-Za-z]{43}/);
  });

  it("is in the OpenAPI document with every agent route", async () => {
    const doc = await json(await call("GET", "/v1/openapi.json"));
    for (const p of ["/v1/agent/agent.sh", "/v1/agent/enroll", "/v1/agent/heartbeat", "/v1/agent/logs", "/v1/agent/exit", "/v1/agent/commands", "/v1/agent/commands/{id}"]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(doc.components.securitySchemes.lease_token).toMatchObject({ type: "http", scheme: "bearer" });
  });
});

describe("who may call", () => {
  let lease: { id: string; token: string };
  let second: { id: string; token: string };
  beforeAll(async () => {
    lease = await leaseWithToken();
    second = await leaseWithToken(other);
  });

  it("the lease's own token is accepted", async () => {
    expect((await agent("POST", "/heartbeat", lease)).status).toBe(200);
  });

  it("a wrong, missing or malformed token is 401 in the envelope", async () => {
    const wrong = `lsl_${"A".repeat(43)}`;
    for (const res of [
      await agent("POST", "/heartbeat", { id: lease.id, token: wrong }),
      await call("POST", "/v1/agent/heartbeat", { headers: { "lessor-lease-id": lease.id } }),
      await agent("POST", "/heartbeat", { id: lease.id, token: lease.token.slice(0, -1) }),
      await agent("POST", "/heartbeat", { id: lease.id, token: "" }),
    ]) {
      await expectError(res, 401, "unauthenticated");
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  it("the token without its lease id, or with another lease's, is 401", async () => {
    await expectError(await call("POST", "/v1/agent/heartbeat", { key: lease.token }), 401, "unauthenticated");
    await expectError(await agent("POST", "/heartbeat", { id: second.id, token: lease.token }), 401, "unauthenticated");
    await expectError(await agent("POST", "/heartbeat", { id: lease.id, token: second.token }), 401, "unauthenticated");
    await expectError(await agent("POST", "/heartbeat", { id: "ls_not-a-lease", token: lease.token }), 401, "unauthenticated");
  });

  it("a rotated token stops working; the new one works", async () => {
    const fresh = await leaseWithToken();
    const res = await call("POST", `/v1/sim/leases/${fresh.id}/agent-token`, { key: BOOTSTRAP });
    const { token } = await json(res);
    await expectError(await agent("POST", "/heartbeat", fresh), 401, "unauthenticated");
    expect((await agent("POST", "/heartbeat", { id: fresh.id, token })).status).toBe(200);
  });

  it("an API key is not accepted on /v1/agent/*, whatever its scope", async () => {
    const admin = org.adminKey;
    for (const [method, path] of [
      ["POST", "/heartbeat"],
      ["POST", "/exit"],
      ["GET", "/commands"],
    ] as const) {
      await expectError(await call(method, `/v1/agent${path}`, { key: admin, headers: { "lessor-lease-id": lease.id }, body: method === "POST" ? { code: 0, signal: null } : undefined }), 401, "unauthenticated");
    }
    await expectError(await call("POST", "/v1/agent/logs", { key: admin, raw: "x", headers: { "lessor-lease-id": lease.id, "lessor-log-seq": "0", "content-type": "text/plain" } }), 401);
  });

  it("a lease token is not accepted anywhere else", async () => {
    await expectError(await call("GET", "/v1/leases", { key: lease.token }), 401, "unauthenticated");
    await expectError(await call("GET", `/v1/leases/${lease.id}`, { key: lease.token }), 401, "unauthenticated");
    await expectError(await call("POST", `/v1/leases/${lease.id}/end`, { key: lease.token, body: {} }), 401, "unauthenticated");
    await expectError(await call("GET", "/v1/org", { key: lease.token }), 401, "unauthenticated");
    await expectError(await call("GET", `/v1/sim/leases/${lease.id}/agent`, { key: lease.token }), 401, "unauthenticated");
  });

  it("a call naming a lease that was never created leaves no storage in its object", async () => {
    const id = "ls_0000000000zzzzzzzzzzzzzzzz";
    await expectError(await agent("POST", "/heartbeat", { id, token: lease.token }), 401, "unauthenticated");
    const tables = await runInDurableObject(stubOf(id), (_i, state) => state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table'`).toArray());
    expect(tables.filter((t) => !String(t.name).startsWith("_cf"))).toEqual([]);
  });

  it("a lease's object makes the log's, the commands' and the outputs' tables at their first write, and its own in their cheapest layout", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: SPEC });
    await waitForState(key, lease.id, "ready");
    const schema = async () =>
      Object.fromEntries(
        (await runInDurableObject(stubOf(lease.id), (_i, state) => state.storage.sql.exec<{ name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'table'`).toArray()))
          .filter((t) => !t.name.startsWith("_cf"))
          .map((t) => [t.name, t.sql]),
      );
    const made = await schema();
    expect(Object.keys(made).sort()).toEqual(["agent", "events", "lease", "meta"]);
    // `meta` keyed by its key alone, the lease's one row by the rowid: no second row written for an index.
    expect(made.meta).toMatch(/WITHOUT ROWID/);
    expect(made.lease).toMatch(/one\s+INTEGER PRIMARY KEY/);
    // Nothing to read is nothing: no log, no command.
    expect((await snapshot(lease.id)).commands).toEqual([]);
    const logs = await call("GET", `/v1/leases/${lease.id}/logs`, { key });
    expect([logs.status, await logs.text()]).toEqual([200, ""]);
    expect((await call("POST", `/v1/sim/leases/${lease.id}/agent-commands`, { key: BOOTSTRAP, body: { kind: "exec", cmd: "true" } })).status).toBe(201);
    expect(Object.keys(await schema()).sort()).toEqual(["agent", "agent_commands", "events", "lease", "meta"]);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
  });

  it("the token appears in no answer, event or snapshot", async () => {
    const fresh = await leaseWithToken();
    await agent("POST", "/heartbeat", fresh);
    const seen = [
      JSON.stringify(await getLease(key, fresh.id)),
      JSON.stringify(await json(await call("GET", `/v1/leases/${fresh.id}/events`, { key }))),
      JSON.stringify(await snapshot(fresh.id)),
    ].join("\n");
    expect(seen).not.toContain(fresh.token);
    expect(seen).not.toContain(fresh.token.slice(4));
  });
});

describe("POST /v1/agent/heartbeat", () => {
  it("records liveness, and is not the lease's activity", async () => {
    const lease = await leaseWithToken();
    const ready = await waitForState(key, lease.id, "ready");
    const res = await agent("POST", "/heartbeat", lease);
    expect(res.status).toBe(200);
    const { last_heartbeat_at } = await json(res);
    expect(Date.parse(last_heartbeat_at)).toBeGreaterThan(Date.parse(ready.ready_at) - 1);
    expect((await snapshot(lease.id)).last_heartbeat_at).toBe(last_heartbeat_at);
    expect((await getLease(key, lease.id)).last_activity_at).toBe(ready.last_activity_at);
  });
});

describe("POST /v1/agent/logs", () => {
  it("stores chunks in order; a repeated seq is stored once", async () => {
    const lease = await leaseWithToken();
    expect(await json(await logChunk(lease, 0, "hello\n"))).toEqual({ seq: 0, stored: true, duplicate: false });
    expect(await json(await logChunk(lease, 0, "hello\n"))).toEqual({ seq: 0, stored: false, duplicate: true });
    expect(await json(await logChunk(lease, 0, "something else\n"))).toMatchObject({ duplicate: true });
    await logChunk(lease, 2, "third\n");
    await logChunk(lease, 1, "wörld\n", { "content-type": "text/plain; charset=utf-8" });
    const snap = await snapshot(lease.id);
    expect(snap.log).toBe("hello\nwörld\nthird\n");
    expect(snap.log_bytes).toBe(new TextEncoder().encode(snap.log).byteLength);
  });

  it("a chunk of exactly 1 MiB is stored; one byte more is 413", async () => {
    const lease = await leaseWithToken();
    expect((await logChunk(lease, 0, "x".repeat(LOG_CHUNK_MAX_BYTES))).status).toBe(200);
    await expectError(await logChunk(lease, 1, "x".repeat(LOG_CHUNK_MAX_BYTES + 1)), 413, "payload_too_large");
    expect((await snapshot(lease.id)).log_bytes).toBe(LOG_CHUNK_MAX_BYTES);
  });

  it("needs a sequence number and a text body", async () => {
    const lease = await leaseWithToken();
    await expectError(await agent("POST", "/logs", lease, { raw: "x", headers: { "content-type": "text/plain" } }), 400, "invalid_request");
    for (const seq of ["-1", "x", "1.5", "", "99999999999999999"]) await expectError(await logChunk(lease, seq, "x"), 400, "invalid_request");
    await expectError(await logChunk(lease, 0, "{}", { "content-type": "application/json" }), 415, "unsupported_media_type");
    expect((await snapshot(lease.id)).log_bytes).toBe(0);
  });

  it("keeps 16 MiB: the oldest chunks go, a marker says how much, and a dropped seq is not stored again", async () => {
    const lease = await leaseWithToken();
    const stub = stubOf(lease.id);
    const mib = (fill: number) => new Uint8Array(LOG_CHUNK_MAX_BYTES).fill(fill);
    const count = LOG_CAP_BYTES / LOG_CHUNK_MAX_BYTES;
    for (let seq = 0; seq < count; seq++) expect(await stub.agentCall(lease.token, { op: "log", seq, data: mib(97 + (seq % 26)) })).toMatchObject({ stored: true });
    let snap = await snapshot(lease.id);
    expect([snap.log_bytes, snap.dropped_bytes]).toEqual([LOG_CAP_BYTES, 0]);
    expect(await stub.agentCall(lease.token, { op: "log", seq: count, data: new Uint8Array([10]) })).toMatchObject({ stored: true });
    snap = await snapshot(lease.id);
    expect([snap.log_bytes, snap.dropped_bytes]).toEqual([LOG_CAP_BYTES - LOG_CHUNK_MAX_BYTES + 1, LOG_CHUNK_MAX_BYTES]);
    expect(snap.log.startsWith(droppedMarker(LOG_CHUNK_MAX_BYTES) + "b")).toBe(true);
    expect(await stub.agentCall(lease.token, { op: "log", seq: 0, data: mib(97) })).toMatchObject({ stored: false, duplicate: true });
    expect((await snapshot(lease.id)).log_bytes).toBe(snap.log_bytes);
  });
});

describe("POST /v1/agent/exit", () => {
  it("records the first report only", async () => {
    const lease = await leaseWithToken();
    const first = await json(await agent("POST", "/exit", lease, { body: { code: 3, signal: null } }));
    expect(first).toMatchObject({ recorded: true, exit: { code: 3, signal: null } });
    const again = await json(await agent("POST", "/exit", lease, { body: { code: null, signal: "TERM" } }));
    expect(again).toEqual({ recorded: false, exit: first.exit });
    expect((await snapshot(lease.id)).exit).toEqual(first.exit);
  });

  it("takes exactly one of code and signal, within bounds", async () => {
    const lease = await leaseWithToken();
    for (const body of [{ code: null, signal: null }, { code: 1, signal: "TERM" }, { code: 256, signal: null }, { code: -1, signal: null }, { code: null, signal: "term" }, { code: 0 }]) {
      await expectError(await agent("POST", "/exit", lease, { body }), 400);
    }
    expect(await json(await agent("POST", "/exit", lease, { body: { code: null, signal: "KILL" } }))).toMatchObject({ exit: { code: null, signal: "KILL" } });
  });
});

describe("commands", () => {
  const queue = async (id: string, body: unknown) => {
    const res = await call("POST", `/v1/sim/leases/${id}/agent-commands`, { key: BOOTSTRAP, body });
    expect(res.status).toBe(201);
    return json(res);
  };

  it("delivers an exec once, takes its result once", async () => {
    const lease = await leaseWithToken();
    expect(await json(await agent("GET", "/commands?wait=0", lease))).toEqual({ commands: [] });
    const cmd = await queue(lease.id, { kind: "exec", cmd: "echo 'hé' && exit 4" });
    const { commands } = await json(await agent("GET", "/commands?wait=0", lease));
    expect(commands).toEqual([{ id: cmd.id, kind: "exec", signal: null, cmd_base64: expect.any(String) }]);
    expect(new TextDecoder().decode(Uint8Array.from(atob(commands[0].cmd_base64), (ch) => ch.charCodeAt(0)))).toBe("echo 'hé' && exit 4");
    expect(await json(await agent("GET", "/commands?wait=0", lease))).toEqual({ commands: [] });
    expect(await json(await agent("POST", `/commands/${cmd.id}`, lease, { body: { exit_code: 4, output: "hé\n" } }))).toEqual({ recorded: true, id: cmd.id, exit_code: 4 });
    expect(await json(await agent("POST", `/commands/${cmd.id}`, lease, { body: { exit_code: 0, output: "" } }))).toMatchObject({ recorded: false, exit_code: 4 });
    expect((await snapshot(lease.id)).commands).toMatchObject([{ id: cmd.id, state: "done", exit_code: 4, output: "hé\n" }]);
    await expectError(await agent("POST", "/commands/cmd_nope", lease, { body: { exit_code: 0, output: "" } }), 404, "not_found");
  });

  it("delivers a command again when no result came within a minute, and not before", async () => {
    const lease = await leaseWithToken();
    const cmd = await queue(lease.id, { kind: "exec", cmd: "true" });
    expect((await json(await agent("GET", "/commands", lease))).commands.map((c: any) => c.id)).toEqual([cmd.id]);
    const backdate = (ms: number) =>
      runInDurableObject(stubOf(lease.id), (_i, state) => void state.storage.sql.exec(`UPDATE agent_commands SET delivered_at = delivered_at - ?`, ms));
    await backdate(50_000);
    expect(await json(await agent("GET", "/commands", lease))).toEqual({ commands: [] });
    await backdate(11_000);
    expect((await json(await agent("GET", "/commands", lease))).commands.map((c: any) => c.id)).toEqual([cmd.id]);
    await agent("POST", `/commands/${cmd.id}`, lease, { body: { exit_code: 0, output: "" } });
    await backdate(120_000);
    expect(await json(await agent("GET", "/commands", lease))).toEqual({ commands: [] });
  });

  it("a long poll answers as soon as a command is queued", async () => {
    const lease = await leaseWithToken();
    const t0 = Date.now();
    const polling = agent("GET", "/commands?wait=20", lease);
    await new Promise((r) => setTimeout(r, 300));
    const cmd = await queue(lease.id, { kind: "signal", signal: "TERM" });
    const { commands } = await json(await polling);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(commands).toEqual([{ id: cmd.id, kind: "signal", signal: "TERM", cmd_base64: null }]);
  });

  it("a long poll with nothing queued waits, then answers none", async () => {
    const lease = await leaseWithToken();
    const t0 = Date.now();
    expect(await json(await agent("GET", "/commands?wait=1", lease))).toEqual({ commands: [] });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it("refuses a wait beyond 25 s and an oversized result", async () => {
    const lease = await leaseWithToken();
    await expectError(await agent("GET", "/commands?wait=26", lease), 400);
    await expectError(await agent("GET", "/commands?wait=-1", lease), 400);
    const cmd = await queue(lease.id, { kind: "exec", cmd: "true" });
    await expectError(await agent("POST", `/commands/${cmd.id}`, lease, { body: { exit_code: 0, output: "x".repeat(LOG_CHUNK_MAX_BYTES + 1) } }), 413);
    await expectError(await agent("POST", `/commands/${cmd.id}`, lease, { body: { exit_code: 0, output: 5 } }), 400);
  });
});

describe("after release", () => {
  it("every agent call is 410 lease_released; a wrong token is still 401", async () => {
    const lease = await leaseWithToken();
    const cmd = await json(await call("POST", `/v1/sim/leases/${lease.id}/agent-commands`, { key: BOOTSTRAP, body: { kind: "exec", cmd: "true" } }));
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released");
    const calls = [
      await agent("POST", "/heartbeat", lease),
      await logChunk(lease, 0, "late\n"),
      await agent("POST", "/exit", lease, { body: { code: 0, signal: null } }),
      await agent("GET", "/commands?wait=0", lease),
      await agent("POST", `/commands/${cmd.id}`, lease, { body: { exit_code: 0, output: "" } }),
    ];
    for (const res of calls) await expectError(res, 410, "lease_released");
    await expectError(await agent("POST", "/heartbeat", { id: lease.id, token: `lsl_${"B".repeat(43)}` }), 401, "unauthenticated");
    await expectError(await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP }), 409, "invalid_state");
    await expectError(await call("POST", `/v1/sim/leases/${lease.id}/agent-commands`, { key: BOOTSTRAP, body: { kind: "signal", signal: "KILL" } }), 409, "invalid_state");
  });

  it("a long poll in flight when the lease is released answers 410", async () => {
    const lease = await leaseWithToken();
    const polling = agent("GET", "/commands?wait=3", lease);
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released");
    await expectError(await polling, 410, "lease_released");
  });
});

describe("odd input with a valid token", () => {
  it("is a 4xx in the envelope, never a 500", async () => {
    const lease = await leaseWithToken();
    const json = { "content-type": "application/json" };
    const odd: Array<[string, string, { raw?: string; headers?: Record<string, string>; unchecked?: string }]> = [
      ["POST", "/exit", { raw: "{not json", headers: json }],
      ["POST", "/exit", { raw: "[]", headers: json }],
      ["POST", "/exit", { raw: '{"code":1e309,"signal":null}', headers: json }],
      ["POST", "/exit", { raw: "[".repeat(10_000) + "]".repeat(10_000), headers: json }],
      ["POST", "/exit", { raw: '{"code":0,"signal":null}', headers: { "content-type": "text/plain" } }],
      ["POST", "/logs", { raw: "x", headers: { "content-type": "text/plain", "lessor-log-seq": "1".repeat(400) } }],
      ["POST", "/logs", { raw: "x", headers: { "content-type": "", "lessor-log-seq": "1" } }],
      ["GET", "/commands?wait=1e309", {}],
      ["GET", "/commands?wait=abc&wait=2", {}],
      ["GET", "/commands?wait=%ZZ", {}],
      ["POST", "/commands/%ZZ", { raw: '{"exit_code":0,"output":""}', headers: json }],
      ["POST", `/commands/${"c".repeat(65)}`, { raw: '{"exit_code":0,"output":""}', headers: json }],
      ["POST", "/commands/cmd_x", { raw: '{"exit_code":0.5,"output":""}', headers: json }],
      ["POST", "/commands/cmd_x", { raw: '{"exit_code":0,"output":"","extra":1}', headers: json }],
      ["DELETE", "/heartbeat", { unchecked: "an operation the document does not have" }],
    ];
    // A heartbeat's body is optional (a model's metrics); one that is not JSON is refused like any other.
    await expectError(await agent("POST", "/heartbeat", lease, { raw: "{not json", headers: json }), 400, "invalid_request");
    expect((await agent("POST", "/heartbeat", lease)).status).toBe(200);
    for (const [method, path, opts] of odd) {
      const res = await agent(method, path, lease, opts);
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      await expectError(res, res.status);
    }
  });
});

describe("the test-only routes", () => {
  it("need the bootstrap token, and a lease that exists", async () => {
    const lease = await leaseWithToken();
    await expectError(await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key }), 401);
    await expectError(await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: lease.token }), 401);
    await expectError(await call("POST", "/v1/sim/leases/ls_0000000000zzzzzzzzzzzzzzzz/agent-token", { key: BOOTSTRAP }), 404, "not_found");
    await expectError(await call("GET", "/v1/sim/leases/nope/agent", { key: BOOTSTRAP }), 404, "not_found");
    await expectError(await call("POST", `/v1/sim/leases/${lease.id}/agent-commands`, { key: BOOTSTRAP, body: { kind: "signal", signal: "HUP" } }), 400);
  });

  it("are refused in production", async () => {
    const lease = await leaseWithToken();
    // A production installation that may serve: its own id, no simulated cloud, an https address.
    const production = {
      ...env,
      LESSOR_ENVIRONMENT: "production",
      LESSOR_INSTALLATION_ID: "prodtest",
      LESSOR_PROVIDERS: "runpod",
      LESSOR_PUBLIC_URL: "https://lessor.example.com",
    } as typeof env;
    for (const [method, path] of [
      ["POST", "agent-token"],
      ["GET", "agent"],
    ] as const) {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`${BASE}/v1/sim/leases/${lease.id}/${path}`, { method, headers: { authorization: `Bearer ${BOOTSTRAP}` } }), production, ctx);
      await waitOnExecutionContext(ctx);
      await expectError(res, 403, "sim_only");
    }
    // The lease's token is unchanged: nothing was minted.
    expect((await agent("POST", "/heartbeat", lease)).status).toBe(200);
  });

  // Hardening item 14 (docs/security.md): the bootstrap token drives the simulated cloud's machines
  // only. A lease on an org's own RunPod account is refused, in development as in production.
  it.skipIf(!stubs?.providers.includes("runpod"))("drive only a lease on the simulated cloud: an org's RunPod lease is refused in development and in production", async () => {
    const runpod = stubCloudAdmin(stubs!.url, "runpod");
    await runpod.reset();
    await runpod.setFaults({ provision_delay_ms: 50, boot_delay_ms: 100 });
    const owner = await createOrg();
    expect((await call("PUT", "/v1/providers/runpod", { key: owner.adminKey, body: { api_key: STUB_API_KEYS.runpod } })).status).toBe(200);
    await refreshCatalog();
    const lease = await createLease(owner.adminKey, { kind: "job", cmd: "sleep 600", spec: { gpu: "l40s:1", providers: ["runpod"] }, policy: { on_exit: "keep" } });
    expect(lease.provider).toBe("runpod");
    const production = { ...env, LESSOR_ENVIRONMENT: "production", LESSOR_INSTALLATION_ID: "prodtest", LESSOR_PROVIDERS: "runpod", LESSOR_PUBLIC_URL: "https://lessor.example.com" } as typeof env;
    const routes = [
      ["POST", "agent-commands", { kind: "exec", cmd: "cat /etc/shadow" }],
      ["POST", "agent-commands", { kind: "signal", signal: "KILL" }],
      ["POST", "agent-token", undefined],
      ["GET", "agent", undefined],
    ] as const;
    for (const [method, path, body] of routes) {
      await expectError(await call(method, `/v1/sim/leases/${lease.id}/${path}`, { key: BOOTSTRAP, ...(body ? { body } : {}) }), 403, "sim_only");
      const ctx = createExecutionContext();
      const init = { method, headers: { authorization: `Bearer ${BOOTSTRAP}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) };
      const res = await worker.fetch(new Request(`${BASE}/v1/sim/leases/${lease.id}/${path}`, init), production, ctx);
      await waitOnExecutionContext(ctx);
      await expectError(res, 403, "sim_only");
    }
    // Nothing was queued for the machine, and its token was never minted by the operator.
    const own = (await runInDurableObject(stubOf(lease.id), (o) => (o as unknown as LeaseObject).agentSnapshot(owner.id))) as AgentSnapshot;
    expect(own.commands).toEqual([]);
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key: owner.adminKey })).status).toBe(200);
  });
});

