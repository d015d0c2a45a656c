/**
 * The gateway (docs/deployments.md "The gateway"): a deployment's OpenAI API through lessor, by
 * the deployment's key; streams passed through as they come; requests as activity from start to
 * end; a stopped deployment woken by a request; wrong keys 401 in the envelope.
 */
import { createExecutionContext, env, runInDurableObject, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../functions/index";
import { MODEL_PORT } from "../../src/providers/contract";
import { SIM_OBJECT_NAME, SimProvider } from "../../src/providers/sim/adapter";
import { metricsText } from "../../src/providers/sim/model-server";
import { endEverything } from "./deployment-helpers";
import { BASE, BOOTSTRAP, call, expectError, json, type TestOrg } from "./helpers";
import { events, fastSim, getLease, leaseSuite, sim, waitForState } from "./lease-helpers";

const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
const SPEC = { gpu: "l40s:1" };

let org: TestOrg;
let key: string;
leaseSuite((o, k) => {
  org = o;
  key = k;
});

afterEach(() => endEverything(org, key));

let n = 0;
async function deploy(policy?: Record<string, string>) {
  const name = `gw-${Date.now().toString(36)}-${n++}`;
  const res = await call("PUT", `/v1/deployments/${name}`, { key, body: { model: MODEL, spec: SPEC, ...(policy ? { policy } : {}) } });
  const d = await json(res);
  await waitForState(key, d.lease_id, "ready");
  return d;
}

/** A request through the deployment's base_url. */
function gw(d: { base_url: string; api_key: string }, path: string, init: { method?: string; body?: unknown; key?: string | null } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const k = init.key === undefined ? d.api_key : init.key;
  if (k !== null) headers.authorization = `Bearer ${k}`;
  return SELF.fetch(`${d.base_url}${path}`, { method: init.method ?? (init.body ? "POST" : "GET"), headers, body: init.body ? JSON.stringify(init.body) : undefined });
}

describe("the gateway", () => {
  it("lists the model, answers a chat completion, and streams one", async () => {
    const d = await deploy();
    expect(d.base_url.startsWith(`${BASE}/v1/gateway/${d.id}/v1`)).toBe(true);
    const models = await gw(d, "/models");
    expect(models.status).toBe(200);
    expect((await models.json<any>()).data.map((m: any) => m.id)).toContain(MODEL);
    const chat = await gw(d, "/chat/completions", { body: { model: MODEL, messages: [{ role: "user", content: "hello" }], max_tokens: 8 } });
    expect(chat.status).toBe(200);
    const answer = await chat.json<any>();
    expect(answer.choices[0].message.content.length).toBeGreaterThan(0);
    const stream = await gw(d, "/chat/completions", { body: { model: MODEL, messages: [{ role: "user", content: "hello" }], max_tokens: 8, stream: true } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    const text = await stream.text();
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("refuses a wrong, missing or another deployment's key with 401 in the envelope, never 500", async () => {
    const d = await deploy();
    for (const k of ["wrong-key", null, key]) {
      const res = await gw(d, "/models", { key: k });
      await expectError(res, 401, "unauthenticated");
    }
    await expectError(await gw({ ...d, base_url: `${BASE}/v1/gateway/dp_nosuch/v1` }, "/models"), 401, "unauthenticated");
    // The org's own key does not open the gateway, and the deployment's key opens nothing else.
    await expectError(await call("GET", "/v1/deployments", { key: d.api_key }), 401, "unauthenticated");
    // The caller's key never reaches the machine: it answers only to the machine's key, which lessor sends.
    const rotated = await json(await call("POST", `/v1/deployments/${d.name}/rotate-key`, { key }));
    await expectError(await gw(d, "/models"), 401, "unauthenticated");
    expect((await gw({ ...d, api_key: rotated.api_key }, "/models")).status).toBe(200);
  });

  it("a key that was being served stops at once when rotated; a recreated deployment is reached at its new lease; a deleted one refuses", async () => {
    const d = await deploy();
    // The first request takes the full path and teaches the lease the key; the second takes the quick one.
    for (let i = 0; i < 2; i++) expect((await gw(d, "/models")).status).toBe(200);
    const rotated = await json(await call("POST", `/v1/deployments/${d.name}/rotate-key`, { key }));
    await expectError(await gw(d, "/models"), 401, "unauthenticated");
    const next = { ...d, api_key: rotated.api_key };
    for (let i = 0; i < 2; i++) expect((await gw(next, "/models")).status).toBe(200);
    await expectError(await gw(d, "/models"), 401, "unauthenticated");
    // Recreated: a new lease, the same key; the old lease is released and no longer answers for it.
    const recreated = await json(await call("PUT", `/v1/deployments/${d.name}?recreate=true`, { key, body: { model: MODEL, spec: SPEC, engine_args: ["--max-model-len", "2048"] } }));
    expect(recreated.lease_id).not.toBe(d.lease_id);
    await waitForState(key, recreated.lease_id, "ready");
    for (let i = 0; i < 2; i++) expect((await gw(next, "/models")).status).toBe(200);
    expect((await call("DELETE", `/v1/deployments/${d.name}`, { key })).status).toBe(200);
    await expectError(await gw(next, "/models"), 401, "unauthenticated");
  });

  it("a stream keeps the deployment in use past its idle timeout; it stops once traffic ends", async () => {
    await fastSim({ model_tokens_per_s: 4 });
    const d = await deploy({ idle_timeout: "2s", heartbeat_grace: "1s" });
    const started = Date.now();
    const stream = await gw(d, "/chat/completions", { body: { model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 24, stream: true } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      if (Date.now() - started > 4_000) expect((await getLease(key, d.lease_id)).state).toBe("ready");
    }
    expect(Date.now() - started).toBeGreaterThan(4_000);
    expect((await getLease(key, d.lease_id)).state).toBe("ready");
    const stopped = await waitForState(key, d.lease_id, "stopped", 15_000);
    expect(stopped.release_reason).toBeNull();
  });

  it("a request's end is the lease's last activity within a second, and is written to the lease within seconds", async () => {
    const d = await deploy();
    const before = Date.now();
    const res = await gw(d, "/models");
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const ended = Date.now();
    const stored = () =>
      runInDurableObject(env.LEASE.get(env.LEASE.idFromName(d.lease_id)), (_o, state) =>
        JSON.parse(state.storage.sql.exec<{ record: string }>(`SELECT record FROM lease`).one().record).last_activity_at as number | null,
      );
    // Read from memory before it is written: the deployment's object tells the lease within a second
    // (src/deployments/object.ts `#touched`), and the answer shows it from then.
    let shown = Date.parse((await getLease(key, d.lease_id)).last_activity_at);
    for (let i = 0; i < 20 && !(shown >= before); i++) {
      await pause(100);
      shown = Date.parse((await getLease(key, d.lease_id)).last_activity_at);
    }
    expect(shown).toBeGreaterThanOrEqual(before);
    expect(shown).toBeLessThanOrEqual(ended);
    let written = await stored();
    for (let i = 0; i < 40 && (written === null || written < before); i++) {
      await pause(250);
      written = await stored();
    }
    expect(written).toBe(shown);
  });

  it("a request wakes a stopped deployment and is answered once it is ready", async () => {
    const d = await deploy();
    expect((await call("POST", `/v1/leases/${d.lease_id}/stop`, { key, body: {} })).status).toBe(200);
    await waitForState(key, d.lease_id, "stopped");
    const res = await gw(d, "/models");
    expect(res.status).toBe(200);
    expect((await getLease(key, d.lease_id)).state).toBe("ready");
  });

  it("a deployment that does not come up in time answers 503 deployment_starting with Retry-After", async () => {
    const d = await deploy();
    expect((await call("POST", `/v1/leases/${d.lease_id}/stop`, { key, body: {} })).status).toBe(200);
    await waitForState(key, d.lease_id, "stopped");
    await sim().setFaults({ boot_delay_ms: 60_000 });
    const res = await gw(d, "/models");
    expect(res.headers.get("retry-after")).toBe("10");
    await expectError(res, 503, "deployment_starting");
  });
});

/** A request through the Worker's own fetch handler, with settings overridden and a client address (auth-limits.test.ts). */
async function gwWith(d: { base_url: string; api_key: string }, path: string, opts: { key?: string; ip: string; settings: Partial<Record<keyof typeof env, string>> }) {
  const req = new Request(`${d.base_url}${path}`, { headers: { authorization: `Bearer ${opts.key ?? d.api_key}`, "cf-connecting-ip": opts.ip } });
  return await worker.fetch(req, { ...env, ...opts.settings } as typeof env, createExecutionContext());
}

// Hardening item 13 (docs/security.md).
describe("the gateway's edges", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("wrong keys are failed authentications: past LESSOR_AUTH_FAILURES_PER_MINUTE from one address, 429 with Retry-After; the right key still passes", async () => {
    const d = await deploy();
    const settings = { LESSOR_AUTH_FAILURES_PER_MINUTE: "2" };
    const ip = "198.51.100.131";
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    for (let i = 0; i < 2; i++) await expectError(await gwWith(d, "/models", { key: `wrong-${i}`, ip, settings }), 401, "unauthenticated");
    const limited = await gwWith(d, "/models", { key: "wrong-2", ip, settings });
    expect(limited.headers.get("retry-after")).toBe("30");
    const body = await expectError(limited, 429, "rate_limited");
    expect(body.details).toMatchObject({ budget: "auth_failures", limit_per_minute: 2 });
    // An unknown deployment counts the same; another address has its own budget; the key itself is never refused for it.
    await expectError(await gwWith({ ...d, base_url: `${BASE}/v1/gateway/dp_nosuch/v1` }, "/models", { ip, settings }), 429, "rate_limited");
    await expectError(await gwWith(d, "/models", { key: "wrong-3", ip: "198.51.100.132", settings }), 401, "unauthenticated");
    expect((await gwWith(d, "/models", { ip, settings })).status).toBe(200);
  });

  it("a deployment's callers share its budget of LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE requests: past it, 429 with Retry-After, on either path", async () => {
    const d = await deploy();
    const other = await deploy();
    const settings = { LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE: "2" };
    // The clock stands still from here (the Worker and its objects run in this isolate): no unit comes back meanwhile.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    // The first request takes the full path, the second the quick one: each spends one unit.
    for (let i = 0; i < 2; i++) expect((await gwWith(d, "/models", { ip: `198.51.100.${140 + i}`, settings })).status).toBe(200);
    const limited = await gwWith(d, "/models", { ip: "198.51.100.142", settings });
    expect(limited.headers.get("retry-after")).toBe("30");
    const body = await expectError(limited, 429, "rate_limited");
    expect(body.details).toMatchObject({ budget: "deployment", limit_per_minute: 2 });
    // A wrong key spends none of it: it is refused as a wrong key, not for the budget.
    await expectError(await gwWith(d, "/models", { key: "wrong", ip: "198.51.100.143", settings }), 401, "unauthenticated");
    // Another deployment has its own.
    expect((await gwWith(other, "/models", { ip: "198.51.100.144", settings })).status).toBe(200);
  });

  it("the model server's hop-by-hop and software headers are not passed on", async () => {
    const d = await deploy();
    const { endpoint, modelKey } = await machineOf(d);
    const straight = await endpoint.fetch("/v1/models", { headers: { authorization: `Bearer ${modelKey}` } });
    await straight.arrayBuffer();
    expect(straight.headers.get("server")).toBe("uvicorn");
    // The full path, then the quick one.
    for (let i = 0; i < 2; i++) {
      const res = await gw(d, "/models");
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(res.headers.get("server")).toBeNull();
      expect(res.headers.get("content-type")).toBe("application/json");
    }
    const stream = await gw(d, "/chat/completions", { body: { model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 4, stream: true } });
    expect(stream.headers.get("server")).toBeNull();
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    await stream.text();
  });

  it("a stopped deployment its org's budget will not start is 402 over_budget, without the budget's figures", async () => {
    const d = await deploy();
    expect((await call("POST", `/v1/leases/${d.lease_id}/stop`, { key, body: {} })).status).toBe(200);
    await waitForState(key, d.lease_id, "stopped");
    expect((await call("PUT", "/v1/budget", { key: org.adminKey, body: { monthly_usd: null, concurrent_hourly_usd: 0.000001 } })).status).toBe(200);
    try {
      // The org's own key sees why, with every figure.
      const own = await expectError(await call("POST", `/v1/leases/${d.lease_id}/start`, { key, body: {} }), 402, "over_budget");
      expect(own.details).toHaveProperty("limit_usd");
      const res = await gw(d, "/models");
      const body = await expectError(res, 402, "over_budget");
      expect(body.details).toEqual({ name: d.name });
      expect(body.message).not.toMatch(/\$|[0-9]\.[0-9]|cap/);
    } finally {
      await call("PUT", "/v1/budget", { key: org.adminKey, body: { monthly_usd: null, concurrent_hourly_usd: null } });
    }
  });
});

/** The deployment's machine as the sim has it, and the key its model server requires (never answered by lessor). */
async function machineOf(d: { lease_id: string }) {
  const lease = await getLease(key, d.lease_id);
  const id: string = lease.machine.id;
  const modelKey = await runInDurableObject(env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME)), (_o, state) =>
    JSON.parse(state.storage.sql.exec<{ env: string }>(`SELECT env FROM machines WHERE id = ?`, id).one().env).LESSOR_MODEL_KEY as string,
  );
  const endpoint = await new SimProvider(env).endpoint({ id } as never, MODEL_PORT);
  return { endpoint: endpoint!, modelKey };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("activity beyond the gateway (the model server's metrics)", () => {
  it("requests sent straight to the machine keep the deployment from idling out; without them it stops", async () => {
    await fastSim({ agent_heartbeat_ms: 250, model_tokens_per_s: 1000 });
    const d = await deploy({ idle_timeout: "2s", heartbeat_grace: "1s" });
    const { endpoint, modelKey } = await machineOf(d);
    const started = Date.now();
    // One request every 1.3 s: each request to the sim sets its alarm a tick (1 s) ahead, so
    // requests spaced closer would keep its agent from acting at all.
    while (Date.now() - started < 6_500) {
      const res = await endpoint.fetch("/v1/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${modelKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, prompt: "hi", max_tokens: 4 }),
      });
      expect(res.status).toBe(200);
      await res.body?.cancel();
      expect((await getLease(key, d.lease_id)).state).toBe("ready");
      await pause(1_300);
    }
    // Past the 3 s of grace and idle timeout since the first request: only the direct traffic held it.
    const lease = await getLease(key, d.lease_id);
    expect(lease.state).toBe("ready");
    expect(lease.guard.activity).toMatchObject({ observable: true, idle_stop: "on" });
    const stopped = await waitForState(key, d.lease_id, "stopped", 15_000);
    expect(stopped.release_reason).toBeNull();
  });

  it("a deployment whose metrics cannot be read is in use while its agent beats, and its guard says so; a good read that shows none ends it", async () => {
    await fastSim();
    const d = await deploy({ idle_timeout: "2s", heartbeat_grace: "1s" });
    // The test takes the agent's place: the sim's agent is refused from now on.
    const token = (await json(await call("POST", `/v1/sim/leases/${d.lease_id}/agent-token`, { key: BOOTSTRAP }))).token;
    const beat = (body?: unknown) => call("POST", "/v1/agent/heartbeat", { key: token, headers: { "lessor-lease-id": d.lease_id }, ...(body === undefined ? {} : { body }) });

    const unreadable = await json(await beat({ metrics: null }));
    expect(unreadable.model_activity).toBe("unobservable");
    const guard = (await getLease(key, d.lease_id)).guard;
    // Idle stop is on: the unread heartbeat holds it off until the agent falls silent, and never past the org's ceiling.
    expect(guard.activity).toMatchObject({ observable: false, idle_stop: "on", machine_activity_at: null });
    expect(guard.activity.note).toMatch(/not observable/);
    expect(Date.parse(guard.at), JSON.stringify(guard)).toBeGreaterThan(Date.parse(unreadable.last_heartbeat_at) + 90_000);
    // Malformed text is no better than none.
    expect((await json(await beat({ metrics: "<html>502</html>" }))).model_activity).toBe("unobservable");
    await pause(4_000);
    expect((await getLease(key, d.lease_id)).state).toBe("ready");

    // Its idle deadline is long past: once observable, it stops at once.
    const idle = await json(await beat({ metrics: metricsText(MODEL, { running: 0, waiting: 0, success: 0, prompt_tokens: 0, generation_tokens: 0 }) }));
    expect(idle.model_activity).toBe("idle");
    const stopped = await waitForState(key, d.lease_id, "stopped", 10_000);
    expect(stopped.release_reason).toBeNull();
    expect((await events(key, d.lease_id)).some((e) => e.type === "stop_requested" && e.reason === "idle_timeout")).toBe(true);
  });

  it("what the machine reports keeps a deployment in use only within its org's machine_activity_max", async () => {
    await fastSim();
    const set = await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { machine_activity_max: "4s" } });
    expect(await json(set)).toMatchObject({ machine_activity_max: "4s" });
    try {
      const d = await deploy({ idle_timeout: "2s", heartbeat_grace: "1s" });
      const token = (await json(await call("POST", `/v1/sim/leases/${d.lease_id}/agent-token`, { key: BOOTSTRAP }))).token;
      const beat = (body: unknown) => call("POST", "/v1/agent/heartbeat", { key: token, headers: { "lessor-lease-id": d.lease_id }, body });
      const busy = metricsText(MODEL, { running: 1, waiting: 0, success: 0, prompt_tokens: 0, generation_tokens: 0 });
      const session = Date.parse((await getLease(key, d.lease_id)).session_started_at);
      // A machine that says it is busy at every heartbeat, for ever (a stuck server, or a lie).
      let lease: any;
      for (const started = Date.now(); Date.now() - started < 20_000; await pause(500)) {
        expect((await json(await beat({ metrics: busy }))).model_activity).toBe("active");
        lease = await getLease(key, d.lease_id);
        if (lease.state !== "ready") break;
        expect(lease.guard.activity).toMatchObject({ observable: true, idle_stop: "on", machine_activity_until: new Date(session + 4_000).toISOString() });
      }
      expect(lease.state).toMatch(/^(stopping|stopped)$/);
      expect((await events(key, d.lease_id)).some((e) => e.type === "stop_requested" && e.reason === "idle_timeout")).toBe(true);
    } finally {
      await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { machine_activity_max: "1d" } });
    }
  });

  it("the heartbeat takes no body, or metrics as a string or null; anything else is 400", async () => {
    await fastSim();
    const d = await deploy();
    const token = (await json(await call("POST", `/v1/sim/leases/${d.lease_id}/agent-token`, { key: BOOTSTRAP }))).token;
    const beat = (body?: unknown) => call("POST", "/v1/agent/heartbeat", { key: token, headers: { "lessor-lease-id": d.lease_id }, ...(body === undefined ? {} : { body }) });
    expect(await json(await beat())).toMatchObject({ model_activity: null });
    const running = await json(await beat({ metrics: metricsText(MODEL, { running: 1, waiting: 0, success: 0, prompt_tokens: 0, generation_tokens: 0 }) }));
    expect(running.model_activity).toBe("active");
    await expectError(await beat({ metrics: 5 }), 400, "invalid_request");
    await expectError(await beat({ metrics: "x", other: 1 }), 400, "invalid_request");
    await expectError(await beat({ metrics: "x".repeat(64 * 1024 + 1) }), 400, "invalid_request");
  });
});
