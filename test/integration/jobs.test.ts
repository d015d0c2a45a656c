/**
 * A job's command rules on the sim, in the Workers pool (docs/design.md "The command"): `cmd` and
 * `env` at create, the exit on the lease and `on_exit`, the runtime cap's TERM then KILL, output
 * inactivity (diagnose, terminate), `kill` and its outcomes, and a silent agent. The machine's
 * agent is driven by hand through the test-only sim routes; its token is minted once the lease is
 * ready (provisioning mints the machine's own).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BOOTSTRAP, call, createKey, expectError, json, type TestOrg } from "./helpers";
import { createLease, leaseSuite, events, getLease, restartedWith, waitFor, waitForState } from "./lease-helpers";

let org: TestOrg;
let key: string;

leaseSuite((o, k) => {
  org = o;
  key = k;
});

const SPEC = { gpu: "l40s:1" };
const stubOf = (id: string) => env.LEASE.get(env.LEASE.idFromName(id));
type AgentLease = { id: string; token: string };

/** A ready job with a token of the test's, and one heartbeat (the agent is alive). */
async function job(body: Record<string, unknown> = {}): Promise<AgentLease> {
  const lease = await createLease(key, { kind: "job", cmd: "hang", spec: SPEC, ...body });
  await waitForState(key, lease.id, "ready");
  const res = await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP });
  expect(res.status).toBe(201);
  const l = { id: lease.id, token: (await json(res)).token as string };
  expect((await agent("POST", "/heartbeat", l)).status).toBe(200);
  return l;
}

function agent(method: string, path: string, l: AgentLease, opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  return call(method, `/v1/agent${path}`, { key: l.token, ...opts, headers: { "lessor-lease-id": l.id, ...opts.headers } });
}

const exit = (l: AgentLease, code: number | null, signal: string | null = null) => agent("POST", "/exit", l, { body: { code, signal } });
const output = (l: AgentLease, seq: number, text: string) =>
  agent("POST", "/logs", l, { raw: text, headers: { "content-type": "text/plain", "lessor-log-seq": String(seq) } });

async function commands(id: string): Promise<any[]> {
  const res = await call("GET", `/v1/sim/leases/${id}/agent`, { key: BOOTSTRAP });
  expect(res.status).toBe(200);
  return (await json(res)).commands;
}
const signals = async (id: string) => (await commands(id)).filter((c) => c.kind === "signal").map((c) => c.arg);
const eventOf = async (id: string, type: string) => (await events(key, id)).filter((e) => e.type === type);
const kill = (id: string, body: Record<string, unknown> = {}) => call("POST", `/v1/leases/${id}/kill`, { key, body });

describe("cmd and env at create", () => {
  it("a job without a cmd is refused: 400 cmd_required", async () => {
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "job", spec: SPEC } }), 400, "cmd_required");
  });

  it("refuses an env that is not a shell's, is lessor's own, has too many names or too long a value: 400", async () => {
    const bad: Record<string, string>[] = [
      { "1ABC": "x" },
      { "A-B": "x" },
      { LESSOR_TOKEN: "x" },
      Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, "x"])),
      { BIG: "x".repeat(4097) },
    ];
    for (const e of bad) {
      const res = await call("POST", "/v1/leases", { key, body: { kind: "job", cmd: "hang", spec: SPEC, env: e } });
      expect(res.status, JSON.stringify(Object.keys(e).slice(0, 2))).toBe(400);
    }
  });

  it("takes 64 names and 4 KiB values; shows the names, never a value, and hands them to the machine", async () => {
    const secret = `s3cr3t-${crypto.randomUUID()}`;
    const vars = { ...Object.fromEntries(Array.from({ length: 63 }, (_, i) => [`V${i}`, "x"])), HF_TOKEN: secret, BIG: "y".repeat(4096) };
    delete (vars as Record<string, string>).V0;
    const lease = await createLease(key, { kind: "job", cmd: "hang", spec: SPEC, env: vars });
    expect(lease.env).toEqual(Object.keys(vars).sort());
    const ready = await waitForState(key, lease.id, "ready");
    const list = await json(await call("GET", "/v1/leases?kind=job", { key }));
    for (const text of [JSON.stringify(lease), JSON.stringify(ready), JSON.stringify(await events(key, lease.id)), JSON.stringify(list)]) {
      expect(text).not.toContain(secret);
    }
    const stored = await runInDurableObject(stubOf(lease.id), (_i, state) => state.storage.sql.exec<{ record: string }>(`SELECT record FROM lease`).one().record);
    expect(JSON.parse(stored).env.HF_TOKEN).toBe(secret);
  });
});

describe("the exit and on_exit", () => {
  it("release (the default): the lease shows the exit and is released with job_exited", async () => {
    const l = await job();
    expect((await getLease(key, l.id)).exit).toBeNull();
    expect((await exit(l, 3)).status).toBe(200);
    const released = await waitForState(key, l.id, "released");
    expect(released.release_reason).toBe("job_exited");
    expect(released.exit).toMatchObject({ code: 3, signal: null });
    expect(await eventOf(l.id, "exited")).toHaveLength(1);
  });

  it("stop: the machine is stopped with job_exited", async () => {
    const l = await job({ policy: { on_exit: "stop" } });
    await exit(l, 0);
    const stopped = await waitForState(key, l.id, "stopped");
    expect(stopped.exit).toMatchObject({ code: 0 });
    expect((await eventOf(l.id, "stop_requested"))[0].reason).toBe("job_exited");
  });

  it("keep: the lease stays ready and shows the exit", async () => {
    const l = await job({ policy: { on_exit: "keep" } });
    await exit(l, null, "KILL");
    const lease = await waitFor("the exit on the lease", async () => {
      const v = await getLease(key, l.id);
      return v.exit ? v : null;
    });
    expect(lease).toMatchObject({ state: "ready", exit: { code: null, signal: "KILL" } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await getLease(key, l.id)).state).toBe("ready");
  });
});

describe("max_runtime", () => {
  it("sends TERM at the cap, KILL a kill_grace later, then releases with max_runtime", async () => {
    const l = await job({ policy: { max_runtime: "2s", kill_grace: "1s" } });
    expect(await signals(l.id)).toEqual([]);
    await waitFor("TERM", async () => (await signals(l.id)).length === 1, 10_000);
    expect(await signals(l.id)).toEqual(["TERM"]);
    expect((await getLease(key, l.id)).state).toBe("ready");
    await waitFor("KILL", async () => (await signals(l.id)).length === 2, 10_000);
    expect(await signals(l.id)).toEqual(["TERM", "KILL"]);
    const released = await waitForState(key, l.id, "released", 10_000);
    expect(released.release_reason).toBe("max_runtime");
    expect((await eventOf(l.id, "killed_by_runtime_cap")).map((e) => e.detail.signal)).toEqual(["TERM", "KILL"]);
  });

  it("an exit after the TERM releases at once with max_runtime, whatever on_exit says", async () => {
    const l = await job({ policy: { max_runtime: "2s", kill_grace: "30s", on_exit: "keep" } });
    await waitFor("TERM", async () => (await signals(l.id)).length === 1, 10_000);
    await exit(l, null, "TERM");
    const released = await waitForState(key, l.id, "released", 5_000);
    expect(released.release_reason).toBe("max_runtime");
    expect(await signals(l.id)).toEqual(["TERM"]);
  });
});

describe("max_inactivity", () => {
  it("diagnose: one stalled per stall, a diagnostics exec whose output lands on an event; output resets it", async () => {
    const l = await job({ policy: { max_inactivity: "2s" } });
    const stall = await waitFor("stalled", async () => (await eventOf(l.id, "stalled"))[0], 10_000);
    const diag = (await commands(l.id)).find((c) => c.kind === "exec");
    expect(diag?.arg).toContain("nvidia-smi");
    expect(stall.detail.diagnostics_id).toBe(diag.id);
    // Heartbeats are liveness, not output: they do not end the stall.
    await agent("POST", "/heartbeat", l);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await eventOf(l.id, "stalled")).toHaveLength(1);
    const res = await agent("POST", `/commands/${diag.id}`, l, { body: { exit_code: 0, output: "PID CMD\n1 python train.py\n" + "z".repeat(9000) } });
    expect(res.status).toBe(200);
    const attached = (await eventOf(l.id, "diagnostics"))[0];
    expect(attached.detail.output.startsWith("PID CMD")).toBe(true);
    expect(new TextEncoder().encode(attached.detail.output).byteLength).toBe(8192);
    // New output ends the stall; the next silence is a new one.
    expect((await output(l, 0, "epoch 2\n")).status).toBe(200);
    await waitFor("a second stall", async () => (await eventOf(l.id, "stalled")).length === 2, 10_000);
    expect((await getLease(key, l.id)).state).toBe("ready");
  });

  it("terminate: TERM as the runtime cap, and the exit releases with inactivity", async () => {
    const l = await job({ policy: { max_inactivity: "2s", inactivity_action: "terminate" } });
    await output(l, 0, "starting\n");
    await waitFor("TERM", async () => (await signals(l.id)).length === 1, 10_000);
    expect((await eventOf(l.id, "killed_by_inactivity"))[0].detail.signal).toBe("TERM");
    await exit(l, null, "TERM");
    expect((await waitForState(key, l.id, "released", 5_000)).release_reason).toBe("inactivity");
  });
});

describe("POST /v1/leases/:id/kill", () => {
  it("stopped when the exit comes within the timeout; stopped again (idempotent)", async () => {
    const l = await job({ policy: { on_exit: "keep" } });
    const pending = kill(l.id, { timeout: "5s" });
    await waitFor("TERM", async () => (await signals(l.id)).length === 1);
    await exit(l, null, "TERM");
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ outcome: "stopped" });
    expect(await json(await kill(l.id))).toEqual({ outcome: "stopped" });
    expect(await signals(l.id)).toEqual(["TERM"]);
  });

  it("still_alive with escalate false (TERM only); with escalate, TERM then KILL and still_alive", async () => {
    const l = await job({ policy: { on_exit: "keep" } });
    expect(await json(await kill(l.id, { timeout: "1s", escalate: false }))).toEqual({ outcome: "still_alive" });
    expect(await signals(l.id)).toEqual(["TERM"]);
    expect(await json(await kill(l.id, { timeout: "1s" }))).toEqual({ outcome: "still_alive" });
    expect(await signals(l.id)).toEqual(["TERM", "TERM", "KILL"]);
  });

  it("stopped for a released lease; unknown when the agent never called; 404 and 400 on bad input", async () => {
    const l = await job();
    await call("POST", `/v1/leases/${l.id}/end`, { key });
    await waitForState(key, l.id, "released");
    expect(await json(await kill(l.id))).toEqual({ outcome: "stopped" });
    // The sim's machines always run lessor's agent now, so "never called" cannot be set up here;
    // `unknown` is checked on a silent agent in the test below.
    await expectError(await kill("ls_00000000000000000000000000"), 404, "not_found");
    await expectError(await kill(l.id, { timeout: "121s" }), 400, "invalid_duration");
    await expectError(await kill(l.id, { timeout: "soon" }), 400, "invalid_duration");
    await expectError(await kill(l.id, { escalate: "yes" }), 400);
    const reader = (await createKey(org, "read")).secret;
    expect((await call("POST", `/v1/leases/${l.id}/kill`, { key: reader, body: {} })).status).toBe(403);
  });
});

describe("a silent agent", () => {
  it("is reported once in events and the guard after 90 s without a heartbeat; kill then answers unknown", async () => {
    const l = await job({ policy: { on_exit: "keep" } });
    expect((await getLease(key, l.id)).guard.agent_silent_since).toBeNull();
    const beat = Date.now() - 91_000;
    // As if the session began before the last heartbeat, 91 s ago.
    await runInDurableObject(stubOf(l.id), (_i, state) => {
      state.storage.sql.exec(`UPDATE agent SET last_heartbeat_at = ?`, beat);
      state.storage.sql.exec(`UPDATE lease SET record = json_set(record, '$.session_started_at', ?, '$.ready_at', ?)`, beat - 1_000, beat - 1_000);
    });
    await stubOf(l.id).tick();
    await stubOf(l.id).tick();
    const silent = await eventOf(l.id, "agent_silent");
    expect(silent).toHaveLength(1);
    expect(silent[0].detail.last_heartbeat_at).toBe(new Date(beat).toISOString());
    expect((await getLease(key, l.id)).guard.agent_silent_since).toBe(new Date(beat).toISOString());
    expect(await json(await kill(l.id, { timeout: "1s" }))).toEqual({ outcome: "unknown" });
    // A heartbeat ends the silence.
    await agent("POST", "/heartbeat", l);
    expect((await getLease(key, l.id)).guard.agent_silent_since).toBeNull();
  });

  it("a heartbeat held in memory is not written; after a restart the silence counts from when a lost one could have come", async () => {
    const l = await job({ policy: { on_exit: "keep" } });
    const stored = async () =>
      runInDurableObject(stubOf(l.id), (_i, state) => state.storage.sql.exec<{ b: number }>(`SELECT last_heartbeat_at AS b FROM agent`).one().b);
    const snapshot = async () => (await json(await call("GET", `/v1/sim/leases/${l.id}/agent`, { key: BOOTSTRAP }))).last_heartbeat_at;
    const first = await stored();
    // The next heartbeat, within BEAT_WRITE_MS of the stored one: counted (the agent's view shows it), not written.
    await new Promise((r) => setTimeout(r, 5));
    const answer = await json(await agent("POST", "/heartbeat", l));
    expect(await stored()).toBe(first);
    expect(await snapshot()).toBe(answer.last_heartbeat_at);
    expect(Date.parse(answer.last_heartbeat_at)).toBeGreaterThan(first);

    // The object starts again with the stored heartbeat 91 s old: a later one may have been lost
    // with it, up to 90 s after the stored one, so the agent is not silent yet.
    const beat = Date.now() - 91_000;
    const session = `UPDATE lease SET record = json_set(record, '$.session_started_at', ${beat - 1_000}, '$.ready_at', ${beat - 1_000})`;
    await restartedWith(l.id, `UPDATE agent SET last_heartbeat_at = ${beat}; ${session}`);
    await stubOf(l.id).tick();
    expect(await eventOf(l.id, "agent_silent")).toHaveLength(0);
    expect((await getLease(key, l.id)).guard.agent_silent_since).toBeNull();

    // Stored 181 s ago: even a lost heartbeat is 91 s old. Reported once, naming the heartbeat it knows.
    const old = Date.now() - 181_000;
    await restartedWith(l.id, `UPDATE agent SET last_heartbeat_at = ${old}; UPDATE lease SET record = json_set(record, '$.session_started_at', ${old - 1_000}, '$.ready_at', ${old - 1_000})`);
    await stubOf(l.id).tick();
    await stubOf(l.id).tick();
    const silent = await eventOf(l.id, "agent_silent");
    expect(silent).toHaveLength(1);
    expect(silent[0].detail.last_heartbeat_at).toBe(new Date(old).toISOString());
    expect((await getLease(key, l.id)).guard.agent_silent_since).toBe(new Date(old).toISOString());
  });
});
