/**
 * The sim as its machines' agent (docs/sim.md "The agent"), in the Workers pool: a lease's `cmd`
 * runs in the command language and its output, exit, heartbeats and command results reach the
 * lease through the agent protocol, as a real machine's agent.sh would send them; nothing after
 * the lease is released.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SIM_OBJECT_NAME } from "../../src/providers/sim/adapter";
import { BOOTSTRAP, call, createKey, createOrg, json, refreshCatalog } from "./helpers";
import { createLease, fastSim, machinesOf, sim, waitFor, waitForState } from "./lease-helpers";

let key: string;

beforeAll(async () => {
  key = (await createKey(await createOrg(), "write")).secret;
  await refreshCatalog();
});

beforeEach(async () => {
  await fastSim();
});

const SPEC = { gpu: "l40s:1" };

async function snapshot(id: string) {
  const res = await call("GET", `/v1/sim/leases/${id}/agent`, { key: BOOTSTRAP });
  expect(res.status).toBe(200);
  return json(res);
}

/** A ready scratch lease running `cmd` on a sim machine. */
async function leaseRunning(cmd: string): Promise<string> {
  const lease = await createLease(key, { kind: "scratch", spec: SPEC, cmd });
  await waitForState(key, lease.id, "ready");
  return lease.id;
}

async function queue(id: string, body: Record<string, unknown>) {
  const res = await call("POST", `/v1/sim/leases/${id}/agent-commands`, { key: BOOTSTRAP, body });
  expect(res.status).toBe(201);
  return json(res);
}

const exitOf = (id: string) => waitFor(`lease ${id}'s exit`, async () => (await snapshot(id)).exit);

describe("the sim runs a lease's cmd and reports it", () => {
  it("ships the output as log chunks, then the exit code", async () => {
    const id = await leaseRunning("echo hi; lines 3 x; exit 3");
    const exit = await exitOf(id);
    expect(exit).toMatchObject({ code: 3, signal: null });
    const snap = await snapshot(id);
    expect(snap.log).toBe("hi\nx 1\nx 2\nx 3\n");
    // A heartbeat came with the machine's first pass.
    expect(snap.last_heartbeat_at).not.toBeNull();
  });

  it("output printed later is shipped later, and a run that reaches its end exits 0", async () => {
    const id = await leaseRunning("echo first; sleep 1.5; echo second");
    await waitFor("the first line", async () => (await snapshot(id)).log === "first\n");
    expect((await snapshot(id)).exit).toBeNull();
    expect(await exitOf(id)).toMatchObject({ code: 0, signal: null });
    expect((await snapshot(id)).log).toBe("first\nsecond\n");
  });
});

describe("the token", () => {
  it("is checked as a real agent's: once rotated, the machine's reports are refused", async () => {
    const id = await leaseRunning("sleep 3; echo late; exit 1");
    // The provisioning token the machine holds stops working.
    expect((await call("POST", `/v1/sim/leases/${id}/agent-token`, { key: BOOTSTRAP })).status).toBe(201);
    // Past the run's end (3 s after the machine ran) and a pass more.
    await new Promise((r) => setTimeout(r, 5000));
    const snap = await snapshot(id);
    expect(snap.log).toBe("");
    expect(snap.exit).toBeNull();
  });

  it("a machine created before enrollments, whose environment holds the lease token itself, reports with it as agent.sh would", async () => {
    await sim().setFaults({ agent_heartbeat_ms: 300 });
    const id = await leaseRunning("hang");
    const minted = await json(await call("POST", `/v1/sim/leases/${id}/agent-token`, { key: BOOTSTRAP }));
    const [machine] = await machinesOf(id);
    await runInDurableObject(env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME)), (_i, state) => {
      state.storage.sql.exec(
        "UPDATE machines SET env = ?, agent_token = NULL, heartbeat_at = NULL WHERE id = ?",
        JSON.stringify({ LESSOR_URL: "https://lessor.test", LESSOR_LEASE_ID: id, LESSOR_LEASE_TOKEN: minted.token }),
        machine!.id,
      );
    });
    const before = (await snapshot(id)).last_heartbeat_at;
    await waitFor("a heartbeat with the lease token", async () => {
      const at = (await snapshot(id)).last_heartbeat_at;
      return at !== null && at !== before;
    });
  });
});

describe("signals", () => {
  it("TERM ends a sleeping run with signal TERM", async () => {
    const id = await leaseRunning("echo waiting; sleep 600");
    await waitFor("the first line", async () => (await snapshot(id)).log === "waiting\n");
    const term = await queue(id, { kind: "signal", signal: "TERM" });
    expect(await exitOf(id)).toMatchObject({ code: null, signal: "TERM" });
    const done = await waitFor("the signal's result", async () => (await snapshot(id)).commands.find((c: any) => c.id === term.id && c.state === "done"));
    expect(done.exit_code).toBe(0);
  });

  it("trap-term ignores TERM; KILL ends it; a signal after the end finds no process", async () => {
    // A run that has ended asks for commands with its heartbeats only.
    await sim().setFaults({ agent_heartbeat_ms: 300 });
    const id = await leaseRunning("trap-term; echo stubborn; hang");
    await waitFor("the first line", async () => (await snapshot(id)).log === "stubborn\n");
    const term = await queue(id, { kind: "signal", signal: "TERM" });
    await waitFor("TERM's result", async () => (await snapshot(id)).commands.find((c: any) => c.id === term.id && c.state === "done"));
    // TERM was delivered and ignored: two more passes later the run still has not ended.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await snapshot(id)).exit).toBeNull();
    await queue(id, { kind: "signal", signal: "KILL" });
    expect(await exitOf(id)).toMatchObject({ code: null, signal: "KILL" });
    // The run is over: there is no process to signal (agent.sh answers 1 then).
    const late = await queue(id, { kind: "signal", signal: "TERM" });
    const answered = await waitFor("the late signal's result", async () => (await snapshot(id)).commands.find((c: any) => c.id === late.id && c.state === "done"));
    expect(answered.exit_code).toBe(1);
  });
});

describe("stop", () => {
  it("a stop kills the run: its output before the stop is shipped and the exit is KILL", async () => {
    const id = await leaseRunning("echo before; hang");
    await waitFor("the first line", async () => (await snapshot(id)).log === "before\n");
    const [machine] = await machinesOf(id);
    expect((await sim().operate(machine!.id, "stop")).ok).toBe(true);
    expect(await exitOf(id)).toMatchObject({ code: null, signal: "KILL" });
    expect((await snapshot(id)).log.startsWith("before\n")).toBe(true);
  });
});

describe("exec", () => {
  it("runs the command language on its own and answers its output and code", async () => {
    const id = await leaseRunning("echo main; hang");
    const exec = await queue(id, { kind: "exec", cmd: "echo from exec; lines 2 y; sleep 0.5; exit 7" });
    const bad = await queue(id, { kind: "exec", cmd: "rm -rf /" });
    const results = await waitFor("both results", async () => {
      const commands = (await snapshot(id)).commands;
      const done = commands.filter((c: any) => c.state === "done");
      return done.length === 2 ? commands : null;
    });
    expect(results.find((c: any) => c.id === exec.id)).toMatchObject({ exit_code: 7, output: "from exec\ny 1\ny 2\n" });
    // A line that is not in the language: code 2 and where it went wrong, as `sh -c` answers.
    expect(results.find((c: any) => c.id === bad.id)).toMatchObject({ exit_code: 2, output: expect.stringContaining("line 1, column 1") });
    // The exec's output is its own, not the lease's log; the main run goes on.
    const snap = await snapshot(id);
    expect(snap.log).toBe("main\n");
    expect(snap.exit).toBeNull();
  });

  it("an idle machine's agent takes an exec when it is queued, not at its next heartbeat", async () => {
    await sim().setFaults({ agent_heartbeat_ms: 600_000 });
    const lease = await createLease(key, { kind: "scratch", spec: SPEC });
    await waitForState(key, lease.id, "ready");
    await waitFor("the first heartbeat", async () => (await snapshot(lease.id)).last_heartbeat_at);
    const res = await call("POST", `/v1/leases/${lease.id}/exec`, { key, body: { cmd: "echo now", timeout: "1s" } });
    const exec = await json(res);
    const done = await waitFor(
      "the exec's result",
      async () => {
        const r = await json(await call("GET", `/v1/leases/${lease.id}/exec/${exec.exec_id}`, { key }));
        return r.state === "done" ? r : null;
      },
      10_000,
    );
    // Asked for within the wait above, far inside the ten minutes to the next heartbeat.
    expect(done).toMatchObject({ exit_code: 0, output: "now\n" });
  });
});

describe("heartbeats and release", () => {
  it("heartbeats arrive at the configured period, and nothing arrives after release", async () => {
    await sim().setFaults({ agent_heartbeat_ms: 300 });
    const id = await leaseRunning("echo up; hang");
    const first = await waitFor("a heartbeat", async () => (await snapshot(id)).last_heartbeat_at);
    await waitFor("a later heartbeat", async () => {
      const at = (await snapshot(id)).last_heartbeat_at;
      return at !== first ? at : null;
    });
    expect((await call("POST", `/v1/leases/${id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, id, "released");
    const after = await snapshot(id);
    await new Promise((r) => setTimeout(r, 2000));
    const later = await snapshot(id);
    expect(later.last_heartbeat_at).toBe(after.last_heartbeat_at);
    expect(later.log).toBe(after.log);
    expect(later.exit).toBeNull();
    expect((await machinesOf(id)).every((m) => m.status === "TERMINATED")).toBe(true);
  });

  it("a machine without a cmd only heartbeats", async () => {
    await sim().setFaults({ agent_heartbeat_ms: 300 });
    const lease = await createLease(key, { kind: "scratch", spec: SPEC });
    await waitForState(key, lease.id, "ready");
    const snap = await waitFor("a heartbeat", async () => {
      const s = await snapshot(lease.id);
      return s.last_heartbeat_at ? s : null;
    });
    expect(snap.log).toBe("");
    expect(snap.exit).toBeNull();
  });
});
