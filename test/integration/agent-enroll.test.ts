/**
 * What a machine's create carries, and what its agent may do with it (docs/agent.md "The token";
 * docs/security.md): the create carries an enrollment token, never the lease token, since the
 * provider keeps what a create carries where anyone with the account's key reads it; the agent's
 * first call (`POST /v1/agent/enroll`) exchanges it, with a nonce made on the machine, for the
 * lease token. After that the enrollment gives nothing to a reader of the provider's records, until
 * lessor starts the machine again. And a lease token is rate limited as an API key is: its calls a
 * minute and its log bytes a minute (src/occupant/agent-budget.ts).
 */
import { createExecutionContext, env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../functions/index";
import { LOG_CHUNK_MAX_BYTES } from "../../src/occupant/logs";
import { ENROLL_GRACE_MS } from "../../src/occupant/token";
import { SIM_OBJECT_NAME } from "../../src/providers/sim/adapter";
import { BASE, BOOTSTRAP, call, checkAnswer, expectError, json, type TestOrg } from "./helpers";
import { createLease, getLease, leaseSuite, waitFor, waitForState } from "./lease-helpers";

let org: TestOrg;
let key: string;
leaseSuite((o, k) => {
  org = o;
  key = k;
});

afterEach(() => {
  vi.useRealTimers();
});

const SPEC = { gpu: "l40s:1" };
const NONCE_A = "A".repeat(20) + "nonce0123456789abcdefghij";
const NONCE_B = "B".repeat(20) + "nonce0123456789abcdefghij";

type Lease = { id: string };

const agent = (lease: Lease, bearer: string, method: string, path: string, body?: unknown) =>
  call(method, `/v1/agent${path}`, { key: bearer, body, headers: { "lessor-lease-id": lease.id } });

const enroll = (lease: Lease, enrollToken: string, nonce: string) => agent(lease, enrollToken, "POST", "/enroll", { nonce });

/** A lease whose machine exists: provisioning mints the machine's own enrollment (the one before stops working), so a test's is minted after it. */
async function readyLease(body: Record<string, unknown> = { kind: "scratch", spec: SPEC }): Promise<Lease> {
  const lease = await createLease(key, body);
  await waitForState(key, lease.id, "ready");
  return lease;
}

async function enrollToken(lease: Lease): Promise<string> {
  const res = await call("POST", `/v1/sim/leases/${lease.id}/enroll-token`, { key: BOOTSTRAP });
  expect(res.status).toBe(201);
  return (await json(res)).enroll_token;
}

async function enrolled(lease: Lease, enrollToken: string, nonce: string): Promise<string> {
  const res = await enroll(lease, enrollToken, nonce);
  expect(res.status, await res.clone().text()).toBe(200);
  const { token } = await json(res);
  expect(token).toMatch(/^lsl_[0-9A-Za-z]{43}$/);
  return token;
}

const heartbeat = (lease: Lease, token: string) => agent(lease, token, "POST", "/heartbeat");

/** What the sim keeps of the lease's machine: its environment, as the create carried it. */
async function machineEnv(leaseId: string): Promise<Record<string, string>> {
  const lease = await getLease(key, leaseId);
  const stored = await runInDurableObject(env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME)), (_i, state) =>
    state.storage.sql.exec<{ env: string }>("SELECT env FROM machines WHERE id = ?", lease.machine.id).one(),
  );
  return JSON.parse(stored.env);
}

describe("what a create carries", () => {
  it("an enrollment token, never the lease token; the machine's agent enrolls with it, and then it enrolls no one else", async () => {
    const lease = await createLease(key, { kind: "job", cmd: "hang", spec: SPEC, policy: { on_exit: "keep" } });
    await waitForState(key, lease.id, "ready");
    const machine = await machineEnv(lease.id);
    expect(machine.LESSOR_ENROLL_TOKEN).toMatch(/^lse_[0-9A-Za-z]{43}$/);
    expect(machine).not.toHaveProperty("LESSOR_LEASE_TOKEN");
    expect(JSON.stringify(machine)).not.toMatch(/lsl_/);
    // The sim, as the machine's agent, enrolled and reports with the lease token it got.
    await waitFor("the machine's agent to report", async () => {
      const snap = await json(await call("GET", `/v1/sim/leases/${lease.id}/agent`, { key: BOOTSTRAP }));
      return snap.last_heartbeat_at !== null;
    });
    // Whoever reads the provider's records now has a token that opens nothing.
    await expectError(await enroll(lease, machine.LESSOR_ENROLL_TOKEN!, NONCE_A), 401, "unauthenticated");
    await expectError(await heartbeat(lease, machine.LESSOR_ENROLL_TOKEN!), 401, "unauthenticated");
  });
});

describe("POST /v1/agent/enroll", () => {
  it("answers the lease token once the window is open; then only to the nonce that enrolled, rotating the token", async () => {
    const lease = await readyLease();
    const e = await enrollToken(lease);
    const first = await enrolled(lease, e, NONCE_A);
    expect((await heartbeat(lease, first)).status).toBe(200);
    await expectError(await enroll(lease, e, NONCE_B), 401, "unauthenticated");
    // The same agent again (its answer was lost, or it was started again on the same disk).
    const second = await enrolled(lease, e, NONCE_A);
    expect(second).not.toBe(first);
    await expectError(await heartbeat(lease, first), 401, "unauthenticated");
    expect((await heartbeat(lease, second)).status).toBe(200);
    // Each token only where it belongs.
    await expectError(await enroll(lease, second, NONCE_A), 401, "unauthenticated");
    await expectError(await agent(lease, org.adminKey, "POST", "/enroll", { nonce: NONCE_A }), 401, "unauthenticated");
    await expectError(await enroll(await readyLease(), e, NONCE_A), 401, "unauthenticated");
    // A nonce that is not one: 400, once the token's form is right.
    await expectError(await enroll(lease, e, "short"), 400, "invalid_request");
    await expectError(await agent(lease, e, "POST", "/enroll", { nonce: NONCE_A, extra: 1 }), 400, "invalid_request");
    // A lease token handed over directly (the operator's route) closes the enrollment.
    expect((await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP })).status).toBe(201);
    await expectError(await enroll(lease, e, NONCE_A), 401, "unauthenticated");
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released");
    await expectError(await enroll(lease, await enrollTokenOrReleased(lease), NONCE_A), 401, "unauthenticated");
  });

  it(`is open for the lease's boot_timeout and ${ENROLL_GRACE_MS / 60_000} minutes more, then closed to a new nonce`, async () => {
    const lease = await readyLease({ kind: "scratch", spec: SPEC, policy: { boot_timeout: "5m" } });
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t0);
    const e = await enrollToken(lease);
    vi.setSystemTime(t0 + 5 * 60_000 + ENROLL_GRACE_MS);
    await expectError(await enroll(lease, e, NONCE_A), 401, "unauthenticated");
    vi.setSystemTime(t0 + 5 * 60_000 + ENROLL_GRACE_MS - 1);
    await enrolled(lease, e, NONCE_A);
  });

  it("is open again once lessor starts the stopped machine: the agent of its new run enrolls", async () => {
    const lease = await readyLease();
    const e = await enrollToken(lease);
    await enrolled(lease, e, NONCE_A);
    await expectError(await enroll(lease, e, NONCE_B), 401, "unauthenticated");
    expect((await call("POST", `/v1/leases/${lease.id}/stop`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "stopped");
    await expectError(await enroll(lease, e, NONCE_B), 401, "unauthenticated");
    expect((await call("POST", `/v1/leases/${lease.id}/start`, { key, body: {} })).status).toBe(200);
    await waitFor("the start to be issued", async () => (await getLease(key, lease.id)).state !== "stopped");
    const token = await enrolled(lease, e, NONCE_B);
    expect((await heartbeat(lease, token)).status).toBe(200);
  });

  it("a released lease is 410 to its enrollment as to every agent call", async () => {
    const lease = await readyLease();
    const e = await enrollToken(lease);
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released");
    await expectError(await enroll(lease, e, NONCE_A), 410, "lease_released");
  });
});

/** A released lease mints no enrollment: a token of the right form that is not its. */
async function enrollTokenOrReleased(lease: Lease): Promise<string> {
  const res = await call("POST", `/v1/sim/leases/${lease.id}/enroll-token`, { key: BOOTSTRAP });
  expect(res.status).toBe(409);
  return `lse_${"x".repeat(43)}`;
}

type Settings = Partial<Record<keyof typeof env, string | undefined>>;

/** An agent call through the Worker's own fetch handler with `settings` (unset: the defaults). */
async function direct(lease: Lease, token: string, path: string, settings: Settings, init: { body?: BodyInit; headers?: Record<string, string> } = {}) {
  const req = new Request(`${BASE}/v1/agent${path}`, {
    method: "POST",
    body: init.body,
    headers: { authorization: `Bearer ${token}`, "lessor-lease-id": lease.id, ...init.headers },
  });
  const res = await worker.fetch(req, { ...env, ...settings } as typeof env, createExecutionContext());
  await checkAnswer("POST", `/v1/agent${path}`, res);
  return res;
}

describe("a lease token's budgets", () => {
  async function tokenOf(): Promise<Lease & { token: string }> {
    const lease = await readyLease();
    const res = await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP });
    return { id: lease.id, token: (await json(res)).token };
  }

  it("LESSOR_AGENT_RATE_LIMIT_PER_MINUTE calls a minute (600 by default), then 429 rate_limited with Retry-After, for that token only", async () => {
    const [lease, other] = [await tokenOf(), await tokenOf()];
    const settings = { LESSOR_AGENT_RATE_LIMIT_PER_MINUTE: "3" };
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t0);
    for (let i = 0; i < 3; i++) expect((await direct(lease, lease.token, "/heartbeat", settings)).status).toBe(200);
    const over = await direct(lease, lease.token, "/heartbeat", settings);
    expect(over.headers.get("retry-after")).toBe("20");
    const err = await expectError(over, 429, "rate_limited");
    expect(err.details).toEqual({ budget: "lease_token", limit_per_minute: 3, retry_after_s: 20 });
    expect((await direct(other, other.token, "/heartbeat", settings)).status).toBe(200);
    vi.setSystemTime(t0 + 20_000);
    expect((await direct(lease, lease.token, "/heartbeat", settings)).status).toBe(200);
  });

  it("LESSOR_AGENT_LOG_BYTES_PER_MINUTE log bytes a minute (8 MiB by default, never below a chunk): past it the chunk is 429 and stored when sent again later", async () => {
    const lease = await tokenOf();
    const settings = { LESSOR_AGENT_LOG_BYTES_PER_MINUTE: String(LOG_CHUNK_MAX_BYTES) };
    const chunk = (seq: number, bytes: number) =>
      direct(lease, lease.token, "/logs", settings, { body: "x".repeat(bytes), headers: { "content-type": "text/plain", "lessor-log-seq": String(seq) } });
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t0);
    expect(await json(await chunk(0, LOG_CHUNK_MAX_BYTES))).toMatchObject({ stored: true });
    const over = await chunk(1, 1024);
    expect(over.headers.get("retry-after")).toBe("1");
    const err = await expectError(over, 429, "rate_limited");
    expect(err.details).toEqual({ budget: "log_bytes", limit_per_minute: LOG_CHUNK_MAX_BYTES, retry_after_s: 1 });
    // The calls' own budget is another: a heartbeat is served meanwhile.
    expect((await direct(lease, lease.token, "/heartbeat", settings)).status).toBe(200);
    vi.setSystemTime(t0 + 1_000);
    expect(await json(await chunk(1, 1024))).toMatchObject({ stored: true, duplicate: false });
  });
});
