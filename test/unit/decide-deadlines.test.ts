/**
 * No state disables every deadline but the hard caps (docs/security.md "Deadlines"): a property
 * over lease records, machines and agents that fast-check makes up. With the hard caps removed
 * (no ttl, no max_lifetime, no session budget) and the policy's own clocks set, every live state
 * still has a deadline of its own among `deadlines()` (src/lease/decide.ts), whatever the machine,
 * its agent and the record say: a boot or startup timeout while booting, the idle timeout while
 * ready, the escalation of a stop while stopping, stopped_ttl while stopped or starting. Where the
 * provider's word ends the state at once (a machine gone, in error, stopped, running and ready), a
 * step is due now instead. A step that keeps failing therefore never leaves a lease billing until
 * max_lifetime.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deadlines, restarting } from "../../src/lease/decide";
import { POLICY_DEFAULTS, type Policy } from "../../src/lease/policy";
import { LEASE_STATES, type AgentFacts, type JobProgress, type LeaseRecord, type LeaseState, type MachineState, type Observation, type Reason } from "../../src/lease/state";
import type { Machine } from "../../src/providers/contract";
import { H, lease, machine, T0 } from "../support/lease-fixture";

/** Each machine state's own clocks: one of them is always among its deadlines. */
const OWN_CLOCK: Record<MachineState, readonly Reason[]> = {
  booting: ["boot_timeout", "startup_timeout"],
  ready: ["idle_timeout"],
  stopping: ["stop_failed"],
  stopped: ["stopped_ttl"],
  starting: ["stopped_ttl"],
};

const STATUSES: Machine["status"][] = ["provisioning", "starting", "running", "stopped", "error", "terminated"];
const HARD_CAPS: readonly (Reason | null)[] = ["ttl_expired", "max_lifetime", "budget_exceeded"];

/** A time around the lease's life, or null. */
const time = fc.integer({ min: 0, max: 72 * H }).map((d) => T0 + d);
const maybeTime = fc.option(time, { nil: null });
const duration = fc.integer({ min: 1_000, max: 48 * H });

const policyOf = (kind: LeaseRecord["kind"]) =>
  fc.record({
    idle_timeout: duration,
    stopped_ttl: duration,
    heartbeat_grace: duration,
    boot_timeout: duration,
    startup_timeout: fc.option(duration, { nil: null }),
    max_runtime: fc.option(duration, { nil: null }),
    max_inactivity: fc.option(duration, { nil: null }),
    kill_grace: duration,
    inactivity_action: fc.constantFrom("diagnose" as const, "terminate" as const),
    on_exit: fc.constantFrom("release" as const, "stop" as const, "keep" as const),
  }).map((p): Policy => ({ ...POLICY_DEFAULTS[kind], ...p, ttl: null, max_lifetime: null, max_session_usd: null }));

const exitArb = fc.option(fc.record({ code: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }), signal: fc.option(fc.constantFrom("TERM", "KILL"), { nil: null }), at: time }), { nil: null });

const agentArb: fc.Arbitrary<AgentFacts> = fc.record({
  last_heartbeat_at: maybeTime,
  last_output_at: maybeTime,
  exit: exitArb,
  in_flight: fc.array(time, { maxLength: 2 }),
  gateway_ended_at: maybeTime,
  metrics_read_at: maybeTime,
  metrics_failed_at: maybeTime,
});

const jobArb: fc.Arbitrary<JobProgress | null> = fc.option(
  fc.record({
    exit: exitArb,
    kill_cause: fc.option(fc.constantFrom("max_runtime" as const, "inactivity" as const), { nil: null }),
    term_at: maybeTime,
    kill_at: maybeTime,
    stalled_since: maybeTime,
    diagnostics_id: fc.constant(null),
    silent_after: maybeTime,
  }),
  { nil: null },
);

const leaseArb = fc
  .record({
    state: fc.constantFrom(...LEASE_STATES.filter((s) => s !== "released")),
    kind: fc.constantFrom("scratch" as const, "job" as const, "deployment" as const),
    cmd: fc.option(fc.constant("python serve.py"), { nil: null }),
    model: fc.boolean(),
    can_stop: fc.boolean(),
    state_since: time,
    session_started_at: maybeTime,
    ready_at: maybeTime,
    last_activity_at: maybeTime,
    lock_until: maybeTime,
    machine_status: fc.option(fc.constantFrom(...STATUSES), { nil: null }),
    observed_at: maybeTime,
    observed_change_at: maybeTime,
    retry_at: maybeTime,
    stop_issued_at: maybeTime,
    stop_failing_since: maybeTime,
    stopped_at: maybeTime,
    start_issued_at: maybeTime,
    machine_activity_at: maybeTime,
    machine_activity_max: fc.option(duration, { nil: null }),
    job: jobArb,
  })
  .chain((r) => policyOf(r.kind).map((policy) => ({ ...r, policy })))
  .map(({ model, ...r }) =>
    lease(r.state as LeaseState, {
      ...r,
      ttl_deadline: null,
      model: model ? { id: "sim/echo-1b", key: "machine-key-0123456789", engine_args: [] } : null,
    }),
  );

const obsArb: fc.Arbitrary<Observation> = fc.record({
  machine: fc.oneof(fc.constant(undefined), fc.constant(null), fc.constantFrom(...STATUSES.filter((s) => s !== "terminated")).map(machine)),
  app_ready: fc.option(fc.boolean(), { nil: undefined }),
  exposed: fc.option(fc.boolean(), { nil: undefined }),
  agent: agentArb,
});

/** Whether the provider's word ends the state at once: then a step is due now rather than a clock. */
function resolvedNow(l: LeaseRecord, obs: Observation, now: number): boolean {
  const status = obs.machine === undefined ? undefined : obs.machine === null ? null : obs.machine.status;
  switch (l.state) {
    case "booting":
      return status === null || (status === "error" && !restarting(l, now)) || (status === "running" && obs.app_ready !== false);
    case "ready":
      return status === null || status === "error" || status === "stopped";
    case "stopping":
      return status === null || status === "stopped" || status === "error";
    default:
      return false;
  }
}

describe("deadlines: no live state leaves only the hard caps", () => {
  it("every live state has a clock of its own, or a step due now", () => {
    fc.assert(
      fc.property(leaseArb, obsArb, time, (l, obs, now) => {
        const all = deadlines(l, obs, now);
        for (const c of all) expect(Number.isFinite(c.at), JSON.stringify(c)).toBe(true);
        expect(all.some((c) => HARD_CAPS.includes(c.reason)), "the hard caps were removed").toBe(false);
        if (l.state === "pending" || l.state === "provisioning") return void expect(all.some((c) => c.action === "provision")).toBe(true);
        if (l.state === "releasing") return void expect(all).toContainEqual(expect.objectContaining({ action: "release", at: now }));
        const state = l.state as MachineState;
        const own = all.filter((c) => OWN_CLOCK[state].includes(c.reason!));
        if (own.length > 0) return;
        // No clock of its own: only where the provider's word ends the state now.
        expect(resolvedNow(l, obs, now), `${state}: ${JSON.stringify({ obs: obs.machine?.status ?? obs.machine, deadlines: all })}`).toBe(true);
        expect(all.some((c) => c.at <= now && c.action !== "poll" && c.action !== "report_silent")).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it("the cases that had none: a failed model server's release, a running job, a deployment whose metrics cannot be read, a stop never carried out, a start refused", () => {
    const model = { id: "sim/echo-1b", key: "machine-key-0123456789", engine_args: [] };
    const policy = { ...POLICY_DEFAULTS.deployment, ttl: null, max_lifetime: null };
    const silentAgent: AgentFacts = { last_heartbeat_at: T0, last_output_at: null, exit: null, metrics_read_at: null, metrics_failed_at: T0 };
    const cases: Array<[string, LeaseRecord, Observation, Reason]> = [
      ["booting, the model server exited", lease("booting", { kind: "deployment", model, policy, ttl_deadline: null, ready_at: null }), { machine: undefined, agent: { ...silentAgent, exit: { code: 1, signal: null, at: T0 + 1 } } }, "startup_timeout"],
      ["ready, a job whose command runs", lease("ready", { kind: "job", cmd: "train", policy: { ...POLICY_DEFAULTS.job, idle_timeout: H, max_lifetime: null }, ttl_deadline: null }), { machine: machine("running"), agent: silentAgent }, "idle_timeout"],
      ["ready, a deployment whose metrics cannot be read", lease("ready", { kind: "deployment", model, policy, ttl_deadline: null }), { machine: machine("running"), agent: silentAgent }, "idle_timeout"],
      ["stopping, a stop accepted and never carried out", lease("stopping", { stop_issued_at: T0, ttl_deadline: null }), { machine: machine("running") }, "stop_failed"],
      ["starting, a start refused", lease("starting", { stopped_at: T0, ttl_deadline: null }), { machine: machine("stopped") }, "stopped_ttl"],
    ];
    for (const [name, l, obs, reason] of cases) {
      expect(deadlines(l, obs, T0 + 1).some((c) => c.reason === reason), name).toBe(true);
    }
  });
});
