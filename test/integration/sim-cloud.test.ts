/**
 * The sim's machines through SimProvider, against the real SimCloud object: the lifecycle, listing
 * by label, and each fault the chaos benchmark will lean on.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProviderError, type Machine, type MachineStatus } from "../../src/providers/contract";
import { SIM_OBJECT_NAME, SimProvider, simAdmin } from "../../src/providers/sim/adapter";
import { CLOCK_CHANGE_AT } from "../../src/providers/sim/cloud";
import { nextClockChangeAt } from "../../src/providers/sim/webhooks";
import { BOOTSTRAP, call, createKey, createOrg, expectError, json, refreshCatalog } from "./helpers";
import { createLease, events, machinesOf, waitForState } from "./lease-helpers";

const admin = simAdmin(env);
const FAST = { provision_delay_ms: 30, boot_delay_ms: 30 };
let offerId: string;

/** A provider whose backoff is recorded (and really slept, but briefly). */
function provider() {
  const sleeps: number[] = [];
  const p = new SimProvider(env, {
    sleep: async (ms) => {
      sleeps.push(ms);
      await new Promise((r) => setTimeout(r, 1));
    },
  });
  return { p, sleeps };
}

async function sim(method: string, path: string, body?: unknown): Promise<Response> {
  const stub = env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME));
  return stub.fetch(`https://sim.internal${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function waitForStatus(p: SimProvider, id: string, status: MachineStatus, timeoutMs = 3000): Promise<Machine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await p.getMachine(id);
    if (m?.status === status) return m;
    if (Date.now() > deadline) throw new Error(`machine ${id} is ${m?.status ?? "gone"}, not ${status}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof ProviderError) return e;
    throw e;
  }
  throw new Error("expected a ProviderError");
}

beforeAll(async () => {
  const { offers } = await new SimProvider(env).listOffers();
  offerId = offers.find((o) => o.gpu !== "cpu")!.provider_offer_id;
});

beforeEach(async () => {
  await admin.reset();
});

describe("sim machines: the lifecycle", () => {
  it("create -> provisioning -> running -> stopped -> running -> terminated, and every interval is in the ledger", async () => {
    await admin.setFaults(FAST);
    const { p } = provider();
    const m = await p.createMachine({ label: "lifecycle-a1", offer_id: offerId, image: "img@sha256:00", cmd: "sleep 1" });
    expect(m).toMatchObject({ label: "lifecycle-a1", status: "provisioning", offer_id: offerId });
    expect(m.id).toMatch(/^sim-m-[0-9a-f]+$/);
    expect(m.hourly_usd).toBeGreaterThan(0);
    expect(m.stopped_hourly_usd).toBeCloseTo(Math.round(m.hourly_usd * 0.1 * 10_000) / 10_000, 4);

    await waitForStatus(p, m.id, "running");
    await p.stopMachine(m.id);
    expect((await p.getMachine(m.id))?.status).toBe("stopped");
    // Stopping a stopped machine is what was asked: success, read back.
    await p.stopMachine(m.id);

    let ledger = await admin.getLedger("lifecycle-");
    expect(ledger.machines).toHaveLength(1);
    expect(ledger.machines[0]!.intervals.map((i) => i.status)).toEqual(["PROVISIONING", "STARTING", "RUNNING", "EXITED"]);
    expect(ledger.machines[0]!.intervals.at(-1)!.to).toBeNull();

    await p.startMachine(m.id);
    await waitForStatus(p, m.id, "running");
    await p.startMachine(m.id); // already running: success

    await p.destroyMachine(m.id);
    expect(await p.getMachine(m.id)).toBeNull();
    await p.destroyMachine(m.id); // idempotent
    // The cloud still answers a terminated machine, as TERMINATED.
    const raw = await sim("GET", `/v1/machines/${m.id}`);
    expect(raw.status).toBe(200);
    expect(await raw.json()).toMatchObject({ id: m.id, status: "TERMINATED" });

    ledger = await admin.getLedger("lifecycle-");
    const life = ledger.machines[0]!;
    expect(life.destroyed_at).not.toBeNull();
    expect(life.vanished).toBe(false);
    expect(life.intervals.map((i) => i.status)).toEqual(["PROVISIONING", "STARTING", "RUNNING", "EXITED", "STARTING", "RUNNING"]);
    // Intervals tile the machine's life: each begins where the last ended, from create to destroy.
    expect(life.intervals[0]!.from).toBe(life.created_at);
    for (let i = 1; i < life.intervals.length; i++) expect(life.intervals[i]!.from).toBe(life.intervals[i - 1]!.to);
    expect(life.intervals.at(-1)!.to).toBe(life.destroyed_at);
    expect(life.alive_ms).toBe(life.destroyed_at! - life.created_at);
  });

  it("refuses a stop while booting (read back: unavailable, with the status)", async () => {
    await admin.setFaults({ provision_delay_ms: 60_000 });
    const { p } = provider();
    const m = await p.createMachine({ label: "early-a1", offer_id: offerId });
    const raw = await sim("POST", `/v1/machines/${m.id}/stop`);
    expect(raw.status).toBe(409);
    expect(await raw.json()).toMatchObject({ error: { code: "invalid_state", status: "PROVISIONING" } });
    const e = await providerError(p.stopMachine(m.id));
    expect(e.kind).toBe("unavailable");
    expect(e.message).toContain("provisioning");
    await p.destroyMachine(m.id);
  });

  it("answers unknown machines and offers as the contract says", async () => {
    const { p } = provider();
    expect(await p.getMachine("sim-m-nope")).toBeNull();
    await p.destroyMachine("sim-m-nope");
    expect((await providerError(p.stopMachine("sim-m-nope"))).kind).toBe("not_found");
    expect((await providerError(p.createMachine({ label: "x-a1", offer_id: "no-such-offer" }))).kind).toBe("not_found");
    const bad = await sim("POST", "/v1/machines", { offer_id: offerId });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "invalid_request" } });
  });

  it("lists by label prefix: only matching labels, terminated ones left out", async () => {
    await admin.setFaults(FAST);
    const { p } = provider();
    const a1 = await p.createMachine({ label: "lessor-t-ls_a-a1", offer_id: offerId });
    const a2 = await p.createMachine({ label: "lessor-t-ls_a-a2", offer_id: offerId });
    const b1 = await p.createMachine({ label: "lessor-t-ls_b-a1", offer_id: offerId });
    await p.createMachine({ label: "someone-else", offer_id: offerId });
    const ids = async (prefix: string) => (await p.listMachines(prefix)).map((m) => m.id).sort();
    expect(await ids("lessor-t-ls_a-")).toEqual([a1.id, a2.id].sort());
    expect(await ids("lessor-t-")).toEqual([a1.id, a2.id, b1.id].sort());
    expect(await ids("lessor-t-ls_c-")).toEqual([]);
    expect(await ids("")).toHaveLength(4);
    await p.destroyMachine(a1.id);
    expect(await ids("lessor-t-ls_a-")).toEqual([a2.id]);
    // The ledger keeps the destroyed one.
    expect((await admin.getLedger("lessor-t-ls_a-")).machines).toHaveLength(2);
  });
});

describe("sim machines: the command language (docs/sim.md)", () => {
  it("accepts a cmd that parses, and refuses one that does not with 400 invalid_cmd saying where", async () => {
    const good = await sim("POST", "/v1/machines", { label: "cmd-a1", offer_id: offerId, cmd: "echo hi; sleep 1.5\nexit 3" });
    expect(good.status).toBe(201);
    const bad = await sim("POST", "/v1/machines", { label: "cmd-b1", offer_id: offerId, cmd: "echo hi\n  exit 256" });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: { code: "invalid_cmd", message: 'cmd: line 2, column 3: exit takes one code from 0 to 255, not "256"' } });
    const notText = await sim("POST", "/v1/machines", { label: "cmd-c1", offer_id: offerId, cmd: 7 });
    expect((await json(notText)).error.code).toBe("invalid_cmd");
    expect((await admin.getLedger()).machines.map((m) => m.label)).toEqual(["cmd-a1"]);
  });

  it("the adapter reads invalid_cmd as a refusal (no retry changes it), with the sim's words", async () => {
    const { p } = provider();
    const e = await providerError(p.createMachine({ label: "cmd-d1", offer_id: offerId, cmd: "reboot" }));
    expect(e.kind).toBe("refused");
    expect(e.message).toContain('line 1, column 1: unknown statement "reboot"');
    expect((await admin.getLedger()).machines).toHaveLength(0);
  });

  it("a lease whose cmd the sim refuses is released at once with provider_refused and the sim's words", async () => {
    await admin.setFaults(FAST);
    await refreshCatalog();
    const org = await createOrg();
    const key = (await createKey(org, "write")).secret;
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] }, cmd: "echo starting; sleep soon" });
    const released = await waitForState(key, lease.id, "released");
    expect(released.release_reason).toBe("provider_refused");
    const requested = (await events(key, lease.id)).find((e) => e.type === "release_requested")!;
    expect(requested.detail).toMatchObject({ error: "refused" });
    expect(String(requested.detail.message)).toContain('line 1, column 16: sleep takes one number of seconds from 0 to 2592000, not "soon"');
    expect(await machinesOf(lease.id)).toEqual([]);
  });
});

describe("sim machines: faults", () => {
  it("validates faults and reports them", async () => {
    const res = await sim("PUT", "/v1/faults", { api_error_rate: 2 });
    expect(res.status).toBe(400);
    expect((await res.json()) as any).toMatchObject({ error: { code: "invalid_request" } });
    expect(await admin.setFaults({ boot_failure_rate: 0.25, seed: 9 })).toMatchObject({ boot_failure_rate: 0.25, seed: 9, provision_delay_ms: 500 });
    expect(await admin.getFaults()).toMatchObject({ boot_failure_rate: 0.25, boot_delay_ms: 1500, retry_after_s: 1 });
    await admin.reset();
    expect((await admin.getFaults()).boot_failure_rate).toBe(0);
  });

  it("an ambiguous create throws `ambiguous`, yet the machine exists and listing by its label finds it", async () => {
    await admin.setFaults({ ...FAST, ambiguous_create_rate: 1 });
    const { p } = provider();
    const e = await providerError(p.createMachine({ label: "lessor-t-ls_amb-a1", offer_id: offerId }));
    expect(e.kind).toBe("ambiguous");
    await admin.setFaults({ ambiguous_create_rate: 0 });
    const found = await p.listMachines("lessor-t-ls_amb-");
    expect(found).toHaveLength(1);
    expect(found[0]!.label).toBe("lessor-t-ls_amb-a1");
  });

  it("a 429 is `rate_limited` with retryAfterMs; a create is not retried, a read waits out a short Retry-After and leaves a long one to its caller", async () => {
    await admin.setFaults({ rate_limit_rate: 1, retry_after_s: 3 });
    const { p, sleeps } = provider();
    const e = await providerError(p.createMachine({ label: "rl-a1", offer_id: offerId }));
    expect(e.kind).toBe("rate_limited");
    expect(e.retryAfterMs).toBe(3000);
    expect(sleeps).toEqual([]);
    expect((await admin.getLedger()).machines).toHaveLength(0);

    // Longer than the sim's 2 s cap (src/providers/http.ts `retrying`): given back at once.
    const long = await providerError(p.listMachines("rl-"));
    expect(long.kind).toBe("rate_limited");
    expect(long.retryAfterMs).toBe(3000);
    expect(sleeps).toEqual([]);

    await admin.setFaults({ retry_after_s: 1 });
    const short = await providerError(p.listMachines("rl-"));
    expect(short.kind).toBe("rate_limited");
    expect(sleeps).toEqual([1000, 1000, 1000]);
  });

  it("an injected 429 keeps its promise: the call that waited out Retry-After gets through, others are still refused", async () => {
    await admin.setFaults(FAST);
    const made = await provider().p.createMachine({ label: "rl-promise-a1", offer_id: offerId });
    await admin.setFaults({ rate_limit_rate: 1, retry_after_s: 1 });
    const first = await sim("DELETE", `/v1/machines/${made.id}`);
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("1");
    expect((await sim("DELETE", `/v1/machines/${made.id}`)).status).toBe(429); // too early: still refused
    await new Promise((r) => setTimeout(r, 1050));
    expect((await sim("DELETE", `/v1/machines/${made.id}`)).status).toBe(200);
    expect((await sim("GET", `/v1/machines?label_prefix=rl-promise-`)).status).toBe(429); // another target was promised nothing
    // The ledger keeps the refusals of calls on the machine (a listing's has no machine to go to).
    const [life] = (await admin.getLedger()).machines.filter((m) => m.id === made.id);
    expect(life!.refusals.map((r) => [r.status, r.retry_after_ms])).toEqual([
      [429, 1000],
      [429, 1000],
    ]);
    expect(life!.refusals[0]!.at).toBeLessThanOrEqual(life!.refusals[1]!.at);
  });

  it("the ledger keeps an injected 503 on a machine, with no Retry-After", async () => {
    await admin.setFaults(FAST);
    const made = await provider().p.createMachine({ label: "refused-a1", offer_id: offerId });
    await admin.setFaults({ api_error_rate: 1 });
    expect((await sim("GET", `/v1/machines/${made.id}`)).status).toBe(503);
    await admin.setFaults({ api_error_rate: 0 });
    expect((await sim("GET", `/v1/machines/${made.id}`)).status).toBe(200);
    const [life] = (await admin.getLedger()).machines.filter((m) => m.id === made.id);
    expect(life!.refusals).toEqual([{ at: expect.any(Number), status: 503, retry_after_ms: null }]);
  });

  it("API errors: a create answers `unavailable` and makes nothing; reads succeed through retries at a 50% error rate", async () => {
    await admin.setFaults({ ...FAST, api_error_rate: 1 });
    const { p, sleeps } = provider();
    expect((await providerError(p.createMachine({ label: "api-a1", offer_id: offerId }))).kind).toBe("unavailable");
    expect((await admin.getLedger()).machines).toHaveLength(0);
    expect((await providerError(p.getMachine("sim-m-any"))).kind).toBe("unavailable");
    expect(sleeps).toHaveLength(3);
    for (const ms of sleeps) expect(ms >= 50 && ms <= 200).toBe(true);

    await admin.setFaults({ api_error_rate: 0 });
    const m = await p.createMachine({ label: "api-a1", offer_id: offerId });
    await admin.setFaults({ api_error_rate: 0.5, seed: 7 });
    sleeps.length = 0;
    for (let i = 0; i < 4; i++) {
      expect((await p.getMachine(m.id))?.id).toBe(m.id);
      expect((await p.listMachines("api-")).map((x) => x.id)).toEqual([m.id]);
    }
    await p.destroyMachine(m.id);
    // Half the calls failed, so there were retries, and each read still succeeded.
    expect(sleeps.length).toBeGreaterThan(0);
    await admin.setFaults({ api_error_rate: 0 });
    expect(await p.getMachine(m.id)).toBeNull();
  });

  it("the same seed draws the same faults", async () => {
    const outcomes = async () => {
      await admin.reset();
      await admin.setFaults({ ...FAST, no_capacity_rate: 0.5, seed: 1234 });
      const { p } = provider();
      const out: string[] = [];
      for (let i = 0; i < 12; i++) {
        out.push(await p.createMachine({ label: `seed-a${i}`, offer_id: offerId }).then(
          () => "ok",
          (e: ProviderError) => e.kind,
        ));
      }
      return out;
    };
    const first = await outcomes();
    expect(first).toContain("ok");
    expect(first).toContain("no_capacity");
    expect(await outcomes()).toEqual(first);
  });

  it("no capacity: `no_capacity`, and nothing is made", async () => {
    await admin.setFaults({ no_capacity_rate: 1 });
    const { p } = provider();
    expect((await providerError(p.createMachine({ label: "cap-a1", offer_id: offerId }))).kind).toBe("no_capacity");
    expect((await admin.getLedger()).machines).toHaveLength(0);
  });

  it("a boot failure ends in `error`, and the disk bills until destroyed", async () => {
    await admin.setFaults({ ...FAST, boot_failure_rate: 1 });
    const { p } = provider();
    const m = await p.createMachine({ label: "boot-a1", offer_id: offerId });
    await waitForStatus(p, m.id, "error");
    const life = (await admin.getLedger("boot-")).machines[0]!;
    expect(life.intervals.map((i) => i.status)).toEqual(["PROVISIONING", "STARTING", "ERROR"]);
    expect((await p.listMachines("boot-")).map((x) => x.status)).toEqual(["error"]);
    // A stop is refused; a destroy ends it.
    expect((await providerError(p.stopMachine(m.id))).kind).toBe("unavailable");
    await p.destroyMachine(m.id);
    expect(await p.getMachine(m.id)).toBeNull();
  });

  it("a vanished machine is terminated without any call: get answers null, list leaves it out, the ledger says so", async () => {
    await admin.setFaults({ provision_delay_ms: 0, boot_delay_ms: 0, vanish_rate: 1, vanish_min_ms: 20, vanish_max_ms: 40 });
    const { p } = provider();
    const m = await p.createMachine({ label: "vanish-a1", offer_id: offerId });
    expect(m.status).toBe("running");
    await new Promise((r) => setTimeout(r, 80));
    // The ledger is the first to look: the vanishing is stored with the time it happened.
    const life = (await admin.getLedger("vanish-")).machines[0]!;
    expect(life).toMatchObject({ status: "TERMINATED", vanished: true });
    const running = life.intervals.find((i) => i.status === "RUNNING")!;
    expect(life.destroyed_at! - running.from).toBeGreaterThanOrEqual(20);
    expect(life.destroyed_at! - running.from).toBeLessThanOrEqual(40);
    expect(await p.getMachine(m.id)).toBeNull();
    expect(await p.listMachines("vanish-")).toEqual([]);
    await p.destroyMachine(m.id);
  });

  it("faults spare the market, the ledger and billing", async () => {
    await admin.setFaults({ api_error_rate: 1, rate_limit_rate: 1 });
    const { p, sleeps } = provider();
    expect((await p.listOffers()).offers.length).toBeGreaterThan(0);
    expect(sleeps).toEqual([]);
    expect((await admin.getLedger()).machines).toEqual([]);
    // No hour has closed on a machine made just now.
    expect((await admin.getBilling()).records).toEqual([]);
    expect((await sim("GET", "/v1/billing?from=yesterday")).status).toBe(400);
  });
});

describe("PUT /v1/sim/faults (the admin-only route)", () => {
  it("needs the bootstrap token, merges a partial update, and refuses bad values with a 400", async () => {
    const org = await createOrg();
    await expectError(await call("PUT", "/v1/sim/faults", { key: org.adminKey, body: { api_error_rate: 0.5 } }), 401, "unauthenticated");
    await expectError(await call("GET", "/v1/sim/faults", {}), 401, "unauthenticated");
    const res = await call("PUT", "/v1/sim/faults", { key: BOOTSTRAP, body: { api_error_rate: 0.25, boot_delay_ms: 10 } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ api_error_rate: 0.25, boot_delay_ms: 10, rate_limit_rate: 0 });
    expect(await json(await call("GET", "/v1/sim/faults", { key: BOOTSTRAP }))).toMatchObject({ api_error_rate: 0.25 });
    await expectError(await call("PUT", "/v1/sim/faults", { key: BOOTSTRAP, body: { api_error_rate: 2 } }), 400);
    await expectError(await call("PUT", "/v1/sim/faults", { key: BOOTSTRAP, body: { meteor_rate: 1 } }), 400);
    await expectError(await call("PUT", "/v1/sim/faults", { key: BOOTSTRAP, body: { vanish_min_ms: 10, vanish_max_ms: 5 } }), 400, "invalid_faults");
  });
});

describe("the machine's environment (src/providers/agent-start.ts)", () => {
  const AGENT = { url: "http://127.0.0.1:8787", lease_id: "ls_01jsimagent", enroll_token: "lse_sim-agent-token" };
  const storedEnv = (id: string) =>
    runInDurableObject(env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME)), (_i, state) => {
      const row = state.storage.sql.exec<{ env: string | null }>("SELECT env FROM machines WHERE id = ?", id).toArray()[0];
      return row?.env ?? null;
    });

  it("stores the lease's variables and lessor's with the machine, and answers neither", async () => {
    const { p } = provider();
    const hostile = `it's "$(rm -rf /)"\nline two`;
    const m = await p.createMachine({ label: "lessor-dev-ls_01jsimagent-a1", offer_id: offerId, cmd: "echo hi", env: { PROMPT: hostile }, agent: AGENT });
    expect(JSON.parse((await storedEnv(m.id))!)).toEqual({ PROMPT: hostile, LESSOR_URL: AGENT.url, LESSOR_LEASE_ID: AGENT.lease_id, LESSOR_ENROLL_TOKEN: AGENT.enroll_token, LESSOR_CMD: "echo hi" });
    const answered = await (await sim("GET", `/v1/machines/${m.id}`)).text();
    expect(answered).not.toContain(AGENT.enroll_token);
    expect(JSON.parse(answered)).toMatchObject({ cmd: "echo hi" });
  });

  it("stores nothing for a machine without variables", async () => {
    const { p } = provider();
    const m = await p.createMachine({ label: "lessor-dev-ls_01jsimagent-a2", offer_id: offerId });
    expect(await storedEnv(m.id)).toBeNull();
  });

  it("refuses an env that is not an object of strings under shell names (400), and makes nothing", async () => {
    for (const bad of [{ "1A": "x" }, { A: 1 }, ["A=1"], "A=1"]) {
      const res = await sim("POST", "/v1/machines", { label: "lessor-dev-ls_01jsimagent-a3", offer_id: offerId, env: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await new SimProvider(env).listMachines("lessor-dev-ls_01jsimagent-a3")).toEqual([]);
  });
});

describe("when time alone changes a machine next, in SQL", () => {
  it("CLOCK_CHANGE_AT answers what nextClockChangeAt does, on every status and with or without a vanishing or a take-back", async () => {
    const cases = (["PROVISIONING", "STARTING", "RUNNING", "EXITED", "ERROR"] as const).flatMap((status) =>
      [null, 500, 5_000].flatMap((vanish_at) => [null, 400, 7_000].map((preempt_at) => ({ status, since: 1_000, provision_ms: 100, boot_ms: 2_000, vanish_at, preempt_at }))),
    );
    const sql = await runInDurableObject(env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME)), (_o, state) =>
      cases.map((c) =>
        state.storage.sql
          .exec<{ at: number | null }>(
            `SELECT ${CLOCK_CHANGE_AT} AS at FROM (SELECT ? AS status, ? AS status_since, ? AS provision_ms, ? AS boot_ms, ? AS vanish_at, ? AS preempt_at)`,
            c.status, c.since, c.provision_ms, c.boot_ms, c.vanish_at, c.preempt_at,
          )
          .one().at,
      ),
    );
    expect(sql).toEqual(cases.map((c) => nextClockChangeAt(c)));
    // Every side of the choice is exercised: a boot's end, a vanishing, a take-back (only while running or booting), and never.
    expect(new Set(sql)).toEqual(new Set([1_100, 3_000, 500, 5_000, 400, 7_000, null]));
  });
});
