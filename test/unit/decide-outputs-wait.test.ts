/**
 * A release waiting for the command's outputs (docs/artifacts.md, decide.ts `collectsOutputs`,
 * `outputsSettled`): who waits, and that the wait is a deadline the alarm fires at, both sides of
 * its bound, whatever the release's reason.
 */
import { describe, expect, it } from "vitest";
import { alarmAt, collectsOutputs, decide, deadlines, NO_OUTPUTS_WAIT, outputsWaitFrom } from "../../src/lease/decide";
import { OUTPUTS_WAIT_MAX_MS, OUTPUTS_WAIT_MS, resolvePolicy } from "../../src/lease/policy";
import { NO_AGENT, type AgentFacts, type LeaseRecord, type Reason } from "../../src/lease/state";
import { releaseDecided } from "../../src/lease/transitions";
import { lease, M, S, T0 } from "../support/lease-fixture";

const NOW = T0 + 30 * M;
/** An agent.sh running the command: it polls with collect=1 and heartbeats. */
const alive: AgentFacts = { ...NO_AGENT, last_heartbeat_at: NOW - 20 * S, collects_at: NOW - 5 * S };
const releasing = (reason: Reason, patch: Partial<LeaseRecord> = {}) =>
  lease("releasing", { kind: "job", cmd: "python train.py", release_reason: reason, state_since: NOW, ...patch });

describe("collectsOutputs: which releases wait", () => {
  const rows: { name: string; l: LeaseRecord; agent: AgentFacts; waits: boolean }[] = [
    { name: "a user's end, agent alive", l: releasing("user_end"), agent: alive, waits: true },
    { name: "ttl_expired", l: releasing("ttl_expired"), agent: alive, waits: true },
    { name: "idle_timeout", l: releasing("idle_timeout"), agent: alive, waits: true },
    { name: "a kill's release (max_runtime) before any exit", l: releasing("max_runtime"), agent: alive, waits: true },
    { name: "a scratch lease with a command", l: releasing("user_end", { kind: "scratch" }), agent: alive, waits: true },
    { name: "a deployment never", l: releasing("user_end", { kind: "deployment" }), agent: alive, waits: false },
    { name: "no command (a box)", l: releasing("user_end", { cmd: null }), agent: alive, waits: false },
    { name: "no machine", l: releasing("user_end", { machine_id: null }), agent: alive, waits: false },
    { name: "the machine was last seen stopped", l: releasing("user_end", { machine_status: "stopped" }), agent: alive, waits: false },
    { name: "the machine was last seen in error", l: releasing("user_end", { machine_status: "error" }), agent: alive, waits: false },
    { name: "a booting machine whose agent already runs the command", l: releasing("user_end", { machine_status: "starting" }), agent: alive, waits: true },
    { name: "an agent that never said it collects (the sim's, an older agent.sh)", l: releasing("user_end"), agent: { ...alive, collects_at: null }, waits: false },
    { name: "an agent that said so in a session before", l: releasing("user_end", { session_started_at: NOW - M }), agent: { ...alive, collects_at: NOW - 2 * M, last_heartbeat_at: NOW - 2 * M }, waits: false },
    { name: "an agent last heard just within heartbeat_grace", l: releasing("user_end"), agent: { ...alive, collects_at: NOW - 2 * M + 1, last_heartbeat_at: NOW - 3 * M }, waits: true },
    { name: "an agent last heard heartbeat_grace ago", l: releasing("user_end"), agent: { ...alive, collects_at: NOW - 2 * M, last_heartbeat_at: NOW - 2 * M }, waits: false },
    { name: "the command reported its exit (its outputs went up before)", l: releasing("user_end"), agent: { ...alive, exit: { code: 0, signal: null, at: NOW - M } }, waits: false },
    { name: "not releasing", l: { ...releasing("user_end"), state: "ready" } as LeaseRecord, agent: alive, waits: false },
    ...NO_OUTPUTS_WAIT.map((reason) => ({ name: `no machine to wait for: ${reason}`, l: releasing(reason), agent: alive, waits: false })),
  ];
  it.each(rows)("$name", ({ l, agent, waits }) => {
    expect(collectsOutputs(l, agent, NOW)).toBe(waits);
  });
});

describe("releaseDecided: a release that will not wait says so in its first write", () => {
  it("no wait: outputs_wait null at once; a wait, or a decision already made, is left to the release's first run", () => {
    expect(releaseDecided(releasing("user_end", { cmd: null }), alive, NOW).outputs_wait).toBeNull();
    expect(releaseDecided(releasing("provider_lost"), alive, NOW).outputs_wait).toBeNull();
    expect(releaseDecided(releasing("user_end"), alive, NOW).outputs_wait).toBeUndefined();
    const waiting = { ...releasing("user_end"), outputs_wait: outputsWaitFrom(releasing("user_end"), "cmd_1", NOW) };
    expect(releaseDecided({ ...waiting, cmd: null }, alive, NOW)).toEqual({ ...waiting, cmd: null });
    // Not releasing: nothing to decide.
    expect(releaseDecided(lease("ready", { cmd: null }), alive, NOW).outputs_wait).toBeUndefined();
  });
});

describe("a release waiting for the outputs: its bound is a deadline", () => {
  const reasons: Reason[] = ["user_end", "ttl_expired", "idle_timeout", "preempted"];
  it.each(reasons)("%s: waits until the bound, released at it", (reason) => {
    const l = releasing(reason);
    const waiting = { ...l, outputs_wait: outputsWaitFrom(l, "cmd_1", NOW) };
    const until = NOW + OUTPUTS_WAIT_MS;
    expect(waiting.outputs_wait.until).toBe(until);
    const obs = { machine: undefined, agent: alive };
    expect(decide(waiting, obs, until - 1)).toMatchObject({ action: "wait", next: "release", reason, at: until });
    expect(decide(waiting, obs, until)).toMatchObject({ action: "release", reason });
    // The alarm fires at the bound (STYLE.md rule 7), and the deadline is never off.
    expect(alarmAt(waiting, NOW, alive)).toBe(until);
    expect(deadlines(waiting, obs, NOW).every((c) => c.at <= until)).toBe(true);
  });

  it("the policy's outputs_wait is the bound; a lease stored before it waits the default", () => {
    const l = releasing("user_end", { policy: { ...lease("ready").policy, outputs_wait: 20 * S } });
    expect(outputsWaitFrom(l, "cmd_1", NOW).until).toBe(NOW + 20 * S);
    const legacy = releasing("user_end");
    delete (legacy.policy as Partial<typeof legacy.policy>).outputs_wait;
    expect(outputsWaitFrom(legacy, "cmd_1", NOW).until).toBe(NOW + OUTPUTS_WAIT_MS);
  });

  it("goes on at once when the agent answers the collect, or reports the exit", () => {
    const l = releasing("user_end");
    const waiting = { ...l, outputs_wait: outputsWaitFrom(l, "cmd_1", NOW) };
    const at = NOW + 40 * S;
    expect(decide(waiting, { machine: undefined, agent: { ...alive, collected_at: at } }, at)).toMatchObject({ action: "release", reason: "user_end" });
    expect(decide(waiting, { machine: undefined, agent: { ...alive, exit: { code: null, signal: "TERM", at } } }, at)).toMatchObject({ action: "release" });
    // A collect answered before this wait began is not this wait's.
    expect(decide(waiting, { machine: undefined, agent: { ...alive, collected_at: NOW - 1 } }, at)).toMatchObject({ action: "wait", at: NOW + OUTPUTS_WAIT_MS });
  });

  it("a release that decided not to wait (null) or has not decided (absent) is due at once", () => {
    for (const outputs_wait of [null, undefined]) {
      expect(decide(releasing("user_end", { outputs_wait }), { machine: undefined, agent: alive }, NOW)).toMatchObject({ action: "release", at: NOW });
    }
  });

  it("outputs_wait is a duration of at most an hour, never off", () => {
    expect(resolvePolicy("job").outputs_wait).toBe(OUTPUTS_WAIT_MS);
    expect(resolvePolicy("scratch", { outputs_wait: "30s" }).outputs_wait).toBe(30 * S);
    expect(resolvePolicy("job", { outputs_wait: "1h" }).outputs_wait).toBe(OUTPUTS_WAIT_MAX_MS);
    expect(() => resolvePolicy("job", { outputs_wait: "61m" })).toThrow(/at most 1h/);
  });
});
