/**
 * decide(): every state against every deadline, on both sides of each boundary. Each row names a
 * deadline, the lease and observation it applies to, and what must happen at the deadline; one
 * millisecond before it, that action must not be due.
 */
import { describe, expect, it } from "vitest";
import { killStart } from "../../src/lease/command";
import { POLICY_DEFAULTS, resolvePolicy, type Policy } from "../../src/lease/policy";
import { NO_AGENT, NO_JOB_PROGRESS, type AgentFacts, type JobProgress } from "../../src/lease/state";
import { AGENT_SILENT_MS, alarmMove, deadlines, decide, DEFAULT_MACHINE_ACTIVITY_MAX_MS, guardOf, INDEX_ACTIVITY_MS, indexWrite, type IndexFacts, pollAt, pollInterval, POLL_MAX_MS, POLL_MS, REQUEST_MAX_MS, RESTART_ERROR_GRACE_MS, STOP_ESCALATE_MS, STOP_REISSUE_MS } from "../../src/lease/decide";
import type { LeaseRecord, Observation } from "../../src/lease/state";
import { H, lease, M, machine, S, T0 } from "../support/lease-fixture";

const running: Observation = { machine: machine("running"), app_ready: true };
const starting: Observation = { machine: machine("starting") };
const stoppedObs: Observation = { machine: machine("stopped") };
const unobserved: Observation = { machine: undefined };

interface Row {
  name: string;
  lease: LeaseRecord;
  obs: Observation;
  deadline: number;
  action: string;
  reason: string | null;
}

const rows: Row[] = [
  // ready: hard caps and idle
  { name: "ready: ttl", lease: lease("ready", { last_activity_at: T0 + 4 * H }), obs: running, deadline: T0 + 4 * H, action: "release", reason: "ttl_expired" },
  { name: "ready: max_lifetime (from the session's start)", lease: lease("ready", { ttl_deadline: null, session_started_at: T0 + H, policy: { ...lease("ready").policy, idle_timeout: null } }), obs: running, deadline: T0 + 25 * H, action: "release", reason: "max_lifetime" },
  { name: "ready: budget (max_session_usd at $2/h, $3 -> 90 min)", lease: lease("ready", { policy: { ...lease("ready").policy, max_session_usd: 3, idle_timeout: null } }), obs: running, deadline: T0 + 90 * M, action: "release", reason: "budget_exceeded" },
  { name: "ready: idle (activity + heartbeat grace + idle timeout)", lease: lease("ready"), obs: running, deadline: T0 + 2 * M + 30 * M, action: "stop", reason: "idle_timeout" },
  { name: "ready: heartbeat grace moves the idle deadline", lease: lease("ready", { last_activity_at: T0 + 10 * M }), obs: running, deadline: T0 + 10 * M + 2 * M + 30 * M, action: "stop", reason: "idle_timeout" },
  { name: "ready: a lock holds off idle until it expires", lease: lease("ready", { lock_until: T0 + H }), obs: running, deadline: T0 + H + 30 * M, action: "stop", reason: "idle_timeout" },
  { name: "ready: a lock does not hold off the ttl", lease: lease("ready", { lock_until: T0 + 10 * H, ttl_deadline: T0 + 3 * H }), obs: running, deadline: T0 + 3 * H, action: "release", reason: "ttl_expired" },
  { name: "ready: idle on a provider that cannot stop releases", lease: lease("ready", { can_stop: false }), obs: running, deadline: T0 + 32 * M, action: "release", reason: "idle_timeout" },
  // booting
  { name: "booting: boot_timeout", lease: lease("booting", { ready_at: null, machine_status: "starting" }), obs: starting, deadline: T0 + 10 * M, action: "replace_host", reason: "boot_timeout" },
  { name: "booting: startup_timeout once the machine runs", lease: lease("booting", { ready_at: null, policy: { ...lease("ready").policy, startup_timeout: 20 * M } }), obs: { machine: machine("running"), app_ready: false }, deadline: T0 + 20 * M, action: "release", reason: "startup_timeout" },
  { name: "booting: ttl", lease: lease("booting", { ready_at: null, ttl_deadline: T0 + 5 * M }), obs: starting, deadline: T0 + 5 * M, action: "release", reason: "ttl_expired" },
  { name: "ready: budget counts this session's accrual only (a restart is a new session)", lease: lease("ready", { session_started_at: T0 + 2 * H, ttl_deadline: null, policy: { ...lease("ready").policy, max_session_usd: 1, idle_timeout: null },
    billing: { ...lease("ready").billing, segments: [{ from: T0, to: T0 + H, kind: "running", rate: 2_000_000 }, { from: T0 + H, to: T0 + 2 * H, kind: "stopped", rate: 200_000 }, { from: T0 + 2 * H, to: null, kind: "running", rate: 2_000_000 }] } }), obs: running, deadline: T0 + 2 * H + 30 * M, action: "release", reason: "budget_exceeded" },
  { name: "ready: budget across a rate change ($1 at $2/h, then $2 at $4/h)", lease: lease("ready", { policy: { ...lease("ready").policy, max_session_usd: 3, idle_timeout: null },
    billing: { ...lease("ready").billing, segments: [{ from: T0, to: T0 + 30 * M, kind: "running", rate: 2_000_000 }, { from: T0 + 30 * M, to: null, kind: "running", rate: 4_000_000 }] } }), obs: running, deadline: T0 + 60 * M, action: "release", reason: "budget_exceeded" },
  { name: "ready: budget to the millisecond ($0.01 at $7/h)", lease: lease("ready", { policy: { ...lease("ready").policy, max_session_usd: 0.01, idle_timeout: null },
    billing: { ...lease("ready").billing, segments: [{ from: T0, to: null, kind: "running", rate: 7_000_000 }] } }), obs: running, deadline: T0 + Math.ceil((10_000 * H) / 7_000_000), action: "release", reason: "budget_exceeded" },
  { name: "booting: budget of a session that began inside the open segment", lease: lease("booting", { ready_at: null, state_since: T0 + 10 * M, session_started_at: T0 + 10 * M, policy: { ...lease("ready").policy, max_session_usd: 0.25 } }), obs: starting, deadline: T0 + 17 * M + 30 * S, action: "release", reason: "budget_exceeded" },
  { name: "booting: budget", lease: lease("booting", { ready_at: null, policy: { ...lease("ready").policy, max_session_usd: 0.1 } }), obs: starting, deadline: T0 + 3 * M, action: "release", reason: "budget_exceeded" },
  // stopped
  { name: "stopped: stopped_ttl (from the first time seen stopped)", lease: lease("stopped", { stopped_at: T0 + H, state_since: T0 + H + 5 * M, machine_status: "stopped" }), obs: stoppedObs, deadline: T0 + 3 * H, action: "release", reason: "stopped_ttl" },
  { name: "stopped: ttl still applies", lease: lease("stopped", { stopped_at: T0, ttl_deadline: T0 + H, machine_status: "stopped" }), obs: stoppedObs, deadline: T0 + H, action: "release", reason: "ttl_expired" },
  // stopping
  { name: "stopping: a stop accepted but not carried out is issued again", lease: lease("stopping", { stop_issued_at: T0, ttl_deadline: null }), obs: running, deadline: T0 + STOP_REISSUE_MS, action: "stop", reason: null },
  { name: "stopping: stops failing for 30 minutes escalate to destroy", lease: lease("stopping", { stop_issued_at: null, stop_failing_since: T0, retry_at: T0 + STOP_ESCALATE_MS + 1, ttl_deadline: null }), obs: running, deadline: T0 + STOP_ESCALATE_MS, action: "release", reason: "stop_failed" },
  { name: "stopping: a stop accepted and never carried out escalates too, 30 minutes into stopping", lease: lease("stopping", { stop_issued_at: T0 + 29 * M, ttl_deadline: null }), obs: running, deadline: T0 + STOP_ESCALATE_MS, action: "release", reason: "stop_failed" },
  { name: "stopping: ttl", lease: lease("stopping", { stop_issued_at: T0, ttl_deadline: T0 + 10 * S }), obs: running, deadline: T0 + 10 * S, action: "release", reason: "ttl_expired" },
  // starting: the machine is stopped until a start is accepted
  { name: "starting: a start the provider keeps refusing ends at stopped_ttl", lease: lease("starting", { stopped_at: T0, state_since: T0 + H, ttl_deadline: null, retry_at: T0 + 3 * H }), obs: stoppedObs, deadline: T0 + 2 * H, action: "release", reason: "stopped_ttl" },
  // provisioning waits out a backoff
  { name: "provisioning: retries after its backoff", lease: lease("provisioning", { machine_id: null, retry_at: T0 + 5 * S, ttl_deadline: null }), obs: unobserved, deadline: T0 + 5 * S, action: "provision", reason: null },
];

describe("decide: every deadline, both sides of the boundary", () => {
  it.each(rows)("$name", ({ lease: l, obs, deadline, action, reason }) => {
    const before = decide(l, obs, deadline - 1);
    expect(before.action === action && before.reason === reason, `due 1 ms early: ${JSON.stringify(before)}`).toBe(false);
    expect(before.at).not.toBeNull();
    expect(before.at!).toBeLessThanOrEqual(deadline);
    const at = decide(l, obs, deadline);
    expect({ action: at.action, reason: at.reason }).toEqual({ action, reason });
  });
});

describe("decide: what the machine says", () => {
  it("pending provisions at once", () => {
    expect(decide(lease("pending", { machine_id: null }), unobserved, T0)).toMatchObject({ action: "provision", at: T0 });
  });
  it("booting becomes ready when the machine runs", () => {
    expect(decide(lease("booting", { ready_at: null }), running, T0 + S).action).toBe("mark_ready");
  });
  it("booting on a machine in error replaces the host", () => {
    expect(decide(lease("booting"), { machine: machine("error") }, T0)).toMatchObject({ action: "replace_host", reason: "host_failed" });
  });
  it("booting polls while the machine starts", () => {
    expect(decide(lease("booting", { observed_at: T0 }), starting, T0 + 10)).toMatchObject({ action: "wait", next: "poll", at: T0 + POLL_MS });
  });
  it("a ready lease whose machine vanished is released: provider_lost", () => {
    expect(decide(lease("ready"), { machine: null }, T0)).toMatchObject({ action: "release", reason: "provider_lost" });
  });
  it("a stopped lease whose machine vanished is released: provider_lost", () => {
    expect(decide(lease("stopped", { stopped_at: T0 }), { machine: null }, T0)).toMatchObject({ action: "release", reason: "provider_lost" });
  });
  it("a ready machine the provider stopped is recorded stopped", () => {
    expect(decide(lease("ready"), stoppedObs, T0)).toMatchObject({ action: "mark_stopped", reason: "provider_stopped" });
  });
  it("stopping becomes stopped when the machine is seen stopped", () => {
    expect(decide(lease("stopping", { stop_issued_at: T0 }), stoppedObs, T0 + S).action).toBe("mark_stopped");
  });
  it("starting issues the start", () => {
    expect(decide(lease("starting", { stopped_at: T0 }), stoppedObs, T0 + S).action).toBe("start");
  });
  it("releasing keeps releasing; released does nothing, ever", () => {
    expect(decide(lease("releasing", { release_reason: "user_end" }), unobserved, T0)).toMatchObject({ action: "release", reason: "user_end" });
    expect(decide(lease("released"), unobserved, T0)).toEqual({ action: "none", reason: null, at: null });
  });
  it("a lease in use (fresh heartbeat) is never idle-stopped; its hard cap still applies", () => {
    const l = lease("ready", { ttl_deadline: T0 + H });
    for (let t = T0; t < T0 + H; t += M) {
      const inUse = { ...l, last_activity_at: t };
      const d = decide(inUse, running, t + 30 * S);
      expect(d.action === "stop", `stopped while in use at ${t - T0} ms`).toBe(false);
    }
    expect(decide({ ...l, last_activity_at: T0 + H - S }, running, T0 + H)).toMatchObject({ action: "release", reason: "ttl_expired" });
  });
  it("nothing accruing (provisioning, no machine yet): no budget deadline", () => {
    const l = lease("provisioning", { machine_id: null, ttl_deadline: null, policy: { ...lease("ready").policy, max_lifetime: null, max_session_usd: 0.000001 },
      billing: { ...lease("ready").billing, segments: [] } });
    expect(decide(l, unobserved, T0 + 1000 * H)).toMatchObject({ action: "provision", reason: null });
  });
  it("without an idle timeout or hard caps, a ready lease waits forever", () => {
    const l = lease("ready", { ttl_deadline: null, policy: { ...lease("ready").policy, idle_timeout: null, max_lifetime: null } });
    expect(decide(l, running, T0 + 1000 * H)).toEqual({ action: "wait", reason: null, at: null });
  });
  it("the guard shows the next action, its reason and its time", () => {
    expect(guardOf(lease("ready"), unobserved, T0)).toEqual({
      action: "stop",
      reason: "idle_timeout",
      at: new Date(T0 + 32 * M).toISOString(),
      due: false,
      agent_silent_since: null,
      activity: null,
    });
  });
});

describe("decide: read-backs back off while nothing changes", () => {
  it("pollInterval: 1 s, then 2, 4, 8, and 15 s from then on, on both sides of each step", () => {
    const rows: [number, number][] = [
      [0, 1 * S], [1 * S - 1, 1 * S], [1 * S, 2 * S], [3 * S - 1, 2 * S], [3 * S, 4 * S], [7 * S - 1, 4 * S],
      [7 * S, 8 * S], [15 * S - 1, 8 * S], [15 * S, POLL_MAX_MS], [10 * M, POLL_MAX_MS],
    ];
    for (const [elapsed, interval] of rows) expect(pollInterval(elapsed), `after ${elapsed} ms`).toBe(interval);
  });
  it("reads at 1, 3, 7, 15, 30, 45 s after the state began", () => {
    const reads: number[] = [];
    let l: LeaseRecord = lease("booting", { ready_at: null, machine_status: "starting", observed_at: T0, observed_change_at: T0 });
    for (let i = 0; i < 6; i++) {
      const at = pollAt(l);
      reads.push((at - T0) / S);
      l = { ...l, observed_at: at };
    }
    expect(reads).toEqual([1, 3, 7, 15, 30, 45]);
  });
  it("a change of the observed status starts the schedule again", () => {
    const l = lease("booting", { ready_at: null, machine_status: "starting", state_since: T0, observed_at: T0 + 60 * S, observed_change_at: T0 + 60 * S });
    expect(pollAt(l)).toBe(T0 + 61 * S);
    expect(pollAt({ ...l, observed_change_at: T0 })).toBe(T0 + 75 * S);
  });
  it("a change of state starts the schedule again", () => {
    const l = lease("stopping", { stop_issued_at: T0 + 60 * S, state_since: T0 + 60 * S, observed_at: T0 + 60 * S, observed_change_at: T0 });
    expect(pollAt(l)).toBe(T0 + 61 * S);
  });
  it("booting waits for the backed-off read, not a second later", () => {
    const l = lease("booting", { ready_at: null, machine_status: "starting", observed_at: T0 + 30 * S, observed_change_at: T0 });
    expect(decide(l, starting, T0 + 31 * S)).toMatchObject({ action: "wait", next: "poll", at: T0 + 45 * S });
    expect(decide(l, starting, T0 + 45 * S)).toMatchObject({ action: "poll" });
  });
});

describe("decide: a restarted machine that reports error at first is still starting", () => {
  // lessor started a stopped machine at T0 (a new session): some providers report the previous
  // `exited` state for a moment, read as `error`.
  const restarted = lease("booting", { ready_at: null, machine_status: "error", state_since: T0, session_started_at: T0, start_issued_at: T0, observed_at: T0, observed_change_at: T0 });
  const error: Observation = { machine: machine("error") };
  it("within the grace: not replaced (that would destroy the disk), read back again", () => {
    const d = decide(restarted, error, T0 + RESTART_ERROR_GRACE_MS - 1);
    expect(d.action === "replace_host").toBe(false);
    expect(d.action === "poll" || d.next === "poll").toBe(true);
  });
  it("at the end of the grace: a failed host", () => {
    expect(decide(restarted, error, T0 + RESTART_ERROR_GRACE_MS)).toMatchObject({ action: "replace_host", reason: "host_failed" });
  });
  it("a new machine (no start issued) in error is a failed host at once", () => {
    expect(decide({ ...restarted, start_issued_at: null }, error, T0 + 1)).toMatchObject({ action: "replace_host", reason: "host_failed" });
  });
  it("a ready lease is not covered: a machine in error there is a failed host", () => {
    expect(decide(lease("ready", { start_issued_at: T0 }), error, T0 + 1)).toMatchObject({ action: "release", reason: "host_failed" });
  });
});

// ---- the command (decide.ts `commandRules`) -------------------------------------------------------

const jobPolicy: Policy = { ...POLICY_DEFAULTS.job, max_runtime: 2 * H, max_lifetime: null };
/** A ready job whose command started at T0 (ready_at), no ttl; `agent` is what its agent reported. */
const job = (patch: Partial<LeaseRecord> = {}, policy: Partial<typeof jobPolicy> = {}) =>
  lease("ready", { kind: "job", cmd: "python train.py", ttl_deadline: null, policy: { ...jobPolicy, ...policy }, ...patch });
const agentObs = (agent: Partial<AgentFacts> = {}): Observation => ({ ...running, agent: { ...NO_AGENT, ...agent } });
const progress = (p: Partial<JobProgress>): JobProgress => ({ ...NO_JOB_PROGRESS, ...p });
const exitAt = (at: number, code: number | null = 0, signal: string | null = null) => ({ code, signal, at });

const commandRows: Row[] = [
  { name: "job: max_runtime sends TERM (from when the lease became ready)", lease: job({ ready_at: T0 + M }), obs: agentObs(), deadline: T0 + M + 2 * H, action: "signal", reason: "max_runtime" },
  { name: "job: KILL follows the TERM after kill_grace", lease: job({ job: progress({ kill_cause: "max_runtime", term_at: T0 + 2 * H }) }), obs: agentObs(), deadline: T0 + 2 * H + 10 * S, action: "signal", reason: "max_runtime" },
  { name: "job: a kill_grace of its own", lease: job({ job: progress({ kill_cause: "max_runtime", term_at: T0 + 2 * H }) }, { kill_grace: M }), obs: agentObs(), deadline: T0 + 2 * H + M, action: "signal", reason: "max_runtime" },
  { name: "job: no exit after the KILL: released (max_runtime) a kill_grace later", lease: job({ job: progress({ kill_cause: "max_runtime", term_at: T0, kill_at: T0 + 10 * S }) }), obs: agentObs(), deadline: T0 + 20 * S, action: "release", reason: "max_runtime" },
  { name: "job: inactivity (diagnose) counts from the last output", lease: job({}, { max_runtime: null, max_inactivity: 5 * M }), obs: agentObs({ last_output_at: T0 + 10 * M }), deadline: T0 + 15 * M, action: "diagnose", reason: "inactivity" },
  { name: "job: inactivity counts from the start when there was no output", lease: job({}, { max_runtime: null, max_inactivity: 5 * M }), obs: agentObs(), deadline: T0 + 5 * M, action: "diagnose", reason: "inactivity" },
  { name: "job: heartbeats are not output", lease: job({}, { max_runtime: null, max_inactivity: 5 * M }), obs: agentObs({ last_heartbeat_at: T0 + 5 * M, last_output_at: T0 + M }), deadline: T0 + 6 * M, action: "diagnose", reason: "inactivity" },
  { name: "job: inactivity (terminate) sends TERM", lease: job({}, { max_runtime: null, max_inactivity: 5 * M, inactivity_action: "terminate" }), obs: agentObs({ last_output_at: T0 + M }), deadline: T0 + 6 * M, action: "signal", reason: "inactivity" },
  { name: "job: a new stall (output after the last one) is diagnosed again", lease: job({ job: progress({ stalled_since: T0 }) }, { max_runtime: null, max_inactivity: 5 * M }), obs: agentObs({ last_output_at: T0 + 7 * M }), deadline: T0 + 12 * M, action: "diagnose", reason: "inactivity" },
  { name: "job: an agent silent for 90 s is reported", lease: job({}, { max_runtime: null }), obs: agentObs({ last_heartbeat_at: T0 + M }), deadline: T0 + M + AGENT_SILENT_MS, action: "report_silent", reason: null },
  { name: "job: after its exit (on_exit keep) idle counts from the exit", lease: job({ job: progress({ exit: exitAt(T0 + H) }) }, { max_runtime: null, on_exit: "keep", idle_timeout: 30 * M }), obs: agentObs({ exit: exitAt(T0 + H) }), deadline: T0 + H + 2 * M + 30 * M, action: "stop", reason: "idle_timeout" },
  { name: "scratch: a user's idle_timeout still applies", lease: lease("ready", { policy: { ...POLICY_DEFAULTS.scratch, idle_timeout: 10 * M } }), obs: agentObs(), deadline: T0 + 2 * M + 10 * M, action: "stop", reason: "idle_timeout" },
];

describe("decide: the command's rules, both sides of the boundary", () => {
  it.each(commandRows)("$name", ({ lease: l, obs, deadline, action, reason }) => {
    const before = decide(l, obs, deadline - 1);
    expect(before.action === action && before.reason === reason, `due 1 ms early: ${JSON.stringify(before)}`).toBe(false);
    expect(before.at!).toBeLessThanOrEqual(deadline);
    expect(decide(l, obs, deadline)).toMatchObject({ action, reason });
  });
});

describe("decide: the command's exit and the signals", () => {
  it("says which signal: TERM first, KILL after the grace", () => {
    expect(decide(job(), agentObs(), T0 + 2 * H)).toMatchObject({ action: "signal", signal: "TERM" });
    expect(decide(job({ job: progress({ kill_cause: "max_runtime", term_at: T0 }) }), agentObs(), T0 + 10 * S)).toMatchObject({ action: "signal", signal: "KILL" });
  });
  it("an exit the agent reported is recorded at once, then on_exit applies", () => {
    const e = exitAt(T0 + H, 3);
    expect(decide(job(), agentObs({ exit: e }), T0 + H)).toMatchObject({ action: "mark_exited", at: T0 + H });
    const recorded = (on_exit: "release" | "stop" | "keep", can_stop = true) =>
      decide(job({ can_stop, job: progress({ exit: e }) }, { on_exit }), agentObs({ exit: e }), T0 + H);
    expect(recorded("release")).toMatchObject({ action: "release", reason: "job_exited" });
    expect(recorded("stop")).toMatchObject({ action: "stop", reason: "job_exited" });
    expect(recorded("stop", false)).toMatchObject({ action: "release", reason: "job_exited" });
    expect(recorded("keep").action).toBe("wait");
  });
  it("after lessor's own TERM, the exit releases with the cap's reason whatever on_exit says", () => {
    const e = exitAt(T0 + 2 * H + S, null, "TERM");
    const l = job({ job: progress({ exit: e, kill_cause: "max_runtime", term_at: T0 + 2 * H }) }, { on_exit: "keep" });
    expect(decide(l, agentObs({ exit: e }), T0 + 2 * H + S)).toMatchObject({ action: "release", reason: "max_runtime" });
  });
  it("an exit from a session before this one is not this command's", () => {
    const l = job({ session_started_at: T0 + H, ready_at: T0 + H }, { max_runtime: null });
    expect(decide(l, agentObs({ exit: exitAt(T0) }), T0 + H + S).action).toBe("wait");
  });
  it("a running job is in use while its agent is heard; a silent agent does not keep it in use (its idle_timeout counts)", () => {
    const l = job({ last_activity_at: T0 }, { max_runtime: null, idle_timeout: M });
    // Heard a moment ago: in use until the agent has been silent AGENT_SILENT_MS, then heartbeat_grace, then idle.
    const beat = T0 + 10 * H;
    const idleAt = beat + AGENT_SILENT_MS + 2 * M + M;
    expect(decide(l, agentObs({ last_heartbeat_at: beat }), beat + S)).toMatchObject({ action: "wait", next: "report_silent" });
    expect(deadlines(l, agentObs({ last_heartbeat_at: beat }), beat + S)).toContainEqual({ action: "stop", reason: "idle_timeout", at: idleAt });
    const silenceReported = job({ last_activity_at: T0, job: progress({ silent_after: beat }) }, { max_runtime: null, idle_timeout: M });
    expect(decide(silenceReported, agentObs({ last_heartbeat_at: beat }), idleAt - 1)).toMatchObject({ action: "wait", next: "stop", at: idleAt });
    expect(decide(silenceReported, agentObs({ last_heartbeat_at: beat }), idleAt)).toMatchObject({ action: "stop", reason: "idle_timeout" });
    // An agent that never called this session: from when the lease became ready.
    expect(decide(l, agentObs(), T0 + AGENT_SILENT_MS + 3 * M)).toMatchObject({ action: "stop", reason: "idle_timeout" });
    expect(decide(l, agentObs(), T0 + AGENT_SILENT_MS + 3 * M - 1)).toMatchObject({ action: "wait", next: "stop" });
    // A heartbeat from the session before says nothing of this one.
    const restarted = job({ session_started_at: T0 + H, ready_at: T0 + H, last_activity_at: T0 + H }, { max_runtime: null, idle_timeout: M });
    expect(deadlines(restarted, agentObs({ last_heartbeat_at: T0 + H - 1 }), T0 + H)).toContainEqual({ action: "stop", reason: "idle_timeout", at: T0 + H + AGENT_SILENT_MS + 3 * M });
  });
  it("one stalled per stall: the stall already reported waits for new output", () => {
    const l = job({ job: progress({ stalled_since: T0 + M }) }, { max_runtime: null, max_inactivity: 5 * M });
    expect(decide(l, agentObs({ last_output_at: T0 + M }), T0 + H)).toMatchObject({ action: "wait", at: null });
  });
  it("one agent_silent per silence: a new heartbeat after it can be silent again", () => {
    const l = job({ job: progress({ silent_after: T0 + M }) }, { max_runtime: null });
    expect(decide(l, agentObs({ last_heartbeat_at: T0 + M }), T0 + H)).toMatchObject({ action: "wait", at: null });
    expect(decide(l, agentObs({ last_heartbeat_at: T0 + 2 * M }), T0 + 2 * M + AGENT_SILENT_MS)).toMatchObject({ action: "report_silent", since: T0 + 2 * M });
  });
  it("after the object started again, the agent counts as heard until a heartbeat lost with the object before could have come (beat_bound)", () => {
    // Stored at T0 + M; the object before may have held a later one in memory, up to beat_bound.
    const bound = T0 + M + 60 * S;
    const restarted = agentObs({ last_heartbeat_at: T0 + M, beat_bound: bound });
    const l = job({ last_activity_at: T0 }, { max_runtime: null, idle_timeout: M });
    // No silence is reported before AGENT_SILENT_MS after the bound, and it names the heartbeat it knows.
    expect(decide(l, restarted, bound + AGENT_SILENT_MS - 1)).toMatchObject({ action: "wait", next: "report_silent", at: bound + AGENT_SILENT_MS });
    expect(decide(l, restarted, bound + AGENT_SILENT_MS)).toMatchObject({ action: "report_silent", since: T0 + M });
    expect(guardOf(l, restarted, bound + AGENT_SILENT_MS - 1).agent_silent_since).toBeNull();
    expect(guardOf(l, restarted, bound + AGENT_SILENT_MS).agent_silent_since).toBe(new Date(T0 + M).toISOString());
    expect(killStart(l, restarted.agent!, bound + AGENT_SILENT_MS - 1)).toBe("signal");
    // Its use is not cut short either: the idle stop counts from the bound too.
    expect(deadlines(l, restarted, T0 + 2 * M)).toContainEqual({ action: "stop", reason: "idle_timeout", at: bound + AGENT_SILENT_MS + 2 * M + M });
    // A silence reported before the restart began at a heartbeat that was held, later than the one stored: not reported again.
    const reported = job({ job: progress({ silent_after: T0 + M + 30 * S }) }, { max_runtime: null });
    expect(decide(reported, restarted, T0 + H)).toMatchObject({ action: "wait", at: null });
    // A bound says nothing of a heartbeat from the session before.
    const nextSession = job({ session_started_at: T0 + H, ready_at: T0 + H }, { max_runtime: null });
    expect(guardOf(nextSession, agentObs({ last_heartbeat_at: T0 + H - S, beat_bound: T0 + H + S }), T0 + H + 2 * M).agent_silent_since).toBeNull();
    expect(decide(nextSession, agentObs({ last_heartbeat_at: T0 + H - S, beat_bound: T0 + H + S }), T0 + H + 2 * M).next).not.toBe("report_silent");
  });
  it("the guard shows the runtime cap, and an agent silent for 90 s (not 1 ms less)", () => {
    expect(guardOf(job(), agentObs(), T0)).toMatchObject({ action: "signal", reason: "max_runtime", due: false, agent_silent_since: null });
    expect(guardOf(job(), agentObs({ last_heartbeat_at: T0 }), T0 + AGENT_SILENT_MS - 1).agent_silent_since).toBeNull();
    expect(guardOf(job(), agentObs({ last_heartbeat_at: T0 }), T0 + AGENT_SILENT_MS).agent_silent_since).toBe(new Date(T0).toISOString());
  });
  it("the guard looks past the silence watchdog a heartbeat re-arms, to the policy's next move; a due report is shown", () => {
    const scratch = lease("ready", { ttl_deadline: T0 + H, policy: { ...lease("ready").policy, idle_timeout: null } });
    expect(guardOf(scratch, agentObs({ last_heartbeat_at: T0 }), T0 + S)).toMatchObject({ action: "release", reason: "ttl_expired", due: false });
    expect(guardOf(scratch, agentObs({ last_heartbeat_at: T0 }), T0 + AGENT_SILENT_MS)).toMatchObject({ action: "report_silent", due: true });
  });
});

describe("kill: what it answers before it signals", () => {
  it("stopped without a running machine or after the exit; unknown when the agent is silent or never beat", () => {
    expect(killStart(lease("released", { machine_id: null }), NO_AGENT, T0)).toBe("stopped");
    expect(killStart(lease("stopped"), NO_AGENT, T0)).toBe("stopped");
    // A lease without a command (a scratch session) runs nothing a kill could end.
    expect(killStart(lease("ready", { cmd: null }), { ...NO_AGENT, last_heartbeat_at: T0 }, T0 + S)).toBe("stopped");
    expect(killStart(job(), { ...NO_AGENT, last_heartbeat_at: T0 }, T0 + S)).toBe("signal");
    expect(killStart(job(), { ...NO_AGENT, last_heartbeat_at: T0, exit: exitAt(T0 + S) }, T0 + 2 * S)).toBe("stopped");
    expect(killStart(job(), NO_AGENT, T0)).toBe("unknown");
    expect(killStart(job(), { ...NO_AGENT, last_heartbeat_at: T0 }, T0 + AGENT_SILENT_MS - 1)).toBe("signal");
    expect(killStart(job(), { ...NO_AGENT, last_heartbeat_at: T0 }, T0 + AGENT_SILENT_MS)).toBe("unknown");
  });
});

describe("policy: the command's rules", () => {
  it("defaults: a job releases on exit with a 10 s kill grace; a scratch session has no idle timeout (its ttl bounds it)", () => {
    expect(resolvePolicy("job")).toMatchObject({ on_exit: "release", kill_grace: 10 * S, max_runtime: null, max_inactivity: null, inactivity_action: "diagnose" });
    expect(resolvePolicy("scratch")).toMatchObject({ idle_timeout: null, ttl: 4 * H, on_exit: "keep" });
    expect(resolvePolicy("scratch", { idle_timeout: "15m" }).idle_timeout).toBe(15 * M);
    expect(resolvePolicy("job", { max_runtime: "2s", kill_grace: "1s", max_inactivity: "3s", inactivity_action: "terminate", on_exit: "stop" }))
      .toMatchObject({ max_runtime: 2 * S, kill_grace: S, max_inactivity: 3 * S, inactivity_action: "terminate", on_exit: "stop" });
  });
});

describe("decide: a lease that serves a model is ready when its model answers", () => {
  const model = { id: "sim/echo-1b", key: "machine-key-0123456789", engine_args: [] };
  const booting = (patch: Partial<LeaseRecord> = {}) =>
    lease("booting", { ready_at: null, model, kind: "deployment", policy: POLICY_DEFAULTS.deployment, ttl_deadline: null, ...patch });
  const exit = { code: 1, signal: null, at: T0 + M };

  it("a running machine whose model does not answer yet stays booting, polled", () => {
    expect(decide(booting({ observed_at: T0 + M }), { machine: machine("running"), app_ready: false }, T0 + M)).toMatchObject({ action: "wait", next: "poll" });
  });
  it("the model listed with the key and the key required: ready", () => {
    expect(decide(booting(), { machine: machine("running"), app_ready: true, exposed: false }, T0 + M).action).toBe("mark_ready");
  });
  it("startup_timeout (20 min by default) fires on both sides of its boundary", () => {
    const obs = { machine: machine("running"), app_ready: false };
    expect(decide(booting({ observed_at: T0 + 20 * M - 2 }), obs, T0 + 20 * M - 1)).toMatchObject({ action: "wait", next: "release", reason: "startup_timeout", at: T0 + 20 * M });
    expect(decide(booting({ observed_at: T0 + 20 * M - 2 }), obs, T0 + 20 * M)).toMatchObject({ action: "release", reason: "startup_timeout" });
  });
  it("a server that answers without its key fails closed: endpoint_exposed, never ready", () => {
    expect(decide(booting(), { machine: machine("running"), app_ready: false, exposed: true }, T0 + M)).toMatchObject({ action: "release", reason: "endpoint_exposed", at: T0 + M });
    // The same answer from a lease that serves no model means nothing.
    expect(decide(booting({ model: null }), { machine: machine("running"), app_ready: true, exposed: true }, T0 + M).action).toBe("mark_ready");
  });
  it("a server that exits while starting fails the lease at once: model_server_failed", () => {
    const agent = { ...NO_AGENT, exit };
    expect(decide(booting(), { machine: machine("running"), app_ready: false, agent }, T0 + M)).toMatchObject({ action: "release", reason: "model_server_failed" });
    // Not yet read back, the exit alone is enough: the alarm falls due at once.
    expect(decide(booting(), { machine: undefined, agent }, T0 + M)).toMatchObject({ action: "release", reason: "model_server_failed" });
    // An exit from an earlier session is not this server's.
    const restarted = booting({ session_started_at: T0 + 2 * M, state_since: T0 + 2 * M });
    expect(decide(restarted, { machine: machine("running"), app_ready: false, agent }, T0 + 3 * M).action).not.toBe("release");
    // Without a model, an exit while booting is the command's business, not a failure.
    expect(decide(booting({ model: null }), { machine: machine("running"), app_ready: true, agent }, T0 + M).action).toBe("mark_ready");
  });
  it("a failure whose release cannot be carried out still ends at the boot's own clock", () => {
    const agent = { ...NO_AGENT, exit };
    const l = booting({ machine_status: "running" });
    const startup = T0 + 20 * M;
    // Read this run or not (a release due acts without a read), the startup timeout stays behind the failure.
    for (const m of [machine("running"), undefined]) {
      expect(deadlines(l, { machine: m, app_ready: false, agent }, T0 + M)).toContainEqual({ action: "release", reason: "startup_timeout", at: startup });
    }
    // Past it, the startup timeout is the release that falls due, not the one that keeps failing.
    expect(decide(l, { machine: undefined, agent }, startup + 1)).toMatchObject({ action: "release", reason: "startup_timeout" });
    // A machine not yet running: its boot timeout.
    const starting = booting({ machine_status: "starting" });
    expect(deadlines(starting, { machine: machine("starting"), agent }, T0 + M)).toContainEqual({ action: "replace_host", reason: "boot_timeout", at: T0 + 10 * M });
  });
});

describe("decide: gateway traffic is activity from its start to its end", () => {
  const deployment = (patch: Partial<LeaseRecord> = {}) => lease("ready", { kind: "deployment", policy: POLICY_DEFAULTS.deployment, ttl_deadline: null, ...patch });
  it("a request open keeps the lease in use past its idle timeout", () => {
    const quiet = deployment();
    expect(decide(quiet, running, T0 + 32 * M)).toMatchObject({ action: "stop", reason: "idle_timeout" });
    const busy = { ...running, agent: { ...NO_AGENT, in_flight: [T0 + M] } };
    expect(decide(quiet, busy, T0 + 32 * M).action).toBe("wait");
  });
  it("a request whose end never came counts for REQUEST_MAX_MS at most", () => {
    const lost = { ...running, agent: { ...NO_AGENT, in_flight: [T0] } };
    const idleAt = T0 + REQUEST_MAX_MS + 30 * M;
    expect(decide(deployment(), lost, idleAt - 1).action).toBe("wait");
    expect(decide(deployment(), lost, idleAt)).toMatchObject({ action: "stop", reason: "idle_timeout" });
  });
  it("a request's end not yet written counts as the last activity, to the millisecond of grace", () => {
    // Idle from T0 + 2 min on the record; the gateway saw a request end at T0 + 10 min.
    const quiet = deployment({ last_activity_at: T0 + 2 * M });
    const idleAt = T0 + 10 * M + POLICY_DEFAULTS.deployment.heartbeat_grace + POLICY_DEFAULTS.deployment.idle_timeout!;
    const ended = { ...running, agent: { ...NO_AGENT, gateway_ended_at: T0 + 10 * M } };
    expect(decide(quiet, ended, idleAt - 1).action).toBe("wait");
    expect(decide(quiet, ended, idleAt)).toMatchObject({ action: "stop", reason: "idle_timeout" });
    // An end older than the record's activity changes nothing.
    const old = { ...running, agent: { ...NO_AGENT, gateway_ended_at: T0 } };
    expect(decide(quiet, old, T0 + 2 * M + 32 * M)).toMatchObject({ action: "stop", reason: "idle_timeout" });
  });
  it("traffic never holds off max_lifetime", () => {
    const busy = { ...running, agent: { ...NO_AGENT, in_flight: [T0 + 24 * H - M] } };
    expect(decide(deployment({ session_started_at: T0 }), busy, T0 + 24 * H)).toMatchObject({ action: "release", reason: "max_lifetime" });
  });
});

describe("indexWrite: the D1 index is written only when something it shows or sweeps by changed", () => {
  const held: IndexFacts = {
    columns: { state: "ready", machine_id: "m1", release_reason: null, billing_status: "accruing", billed_from: T0, released_at: null, gpu_class: "l40s", accrual: "[]" },
    next_deadline: T0 + 30 * M,
    last_activity_at: T0,
    record: "r1",
  };
  const now = T0 + 10 * M;
  const want = (patch: Partial<IndexFacts> = {}, columns: Partial<IndexFacts["columns"]> = {}): IndexFacts => ({ ...held, ...patch, columns: { ...held.columns, ...columns } });
  const rows: Array<{ name: string; held?: IndexFacts | null; want: IndexFacts; now?: number; write: false | { columns: "all" | string[]; next_deadline: boolean; holds_deadline: number | null } }> = [
    { name: "nothing known: every column", held: null, want: want(), write: { columns: "all", next_deadline: true, holds_deadline: T0 + 30 * M } },
    { name: "nothing changed", want: want(), write: false },
    { name: "a heartbeat: activity under INDEX_ACTIVITY_MS, the deadline later", want: want({ last_activity_at: T0 + INDEX_ACTIVITY_MS - 1, next_deadline: T0 + 31 * M }), write: false },
    { name: "activity INDEX_ACTIVITY_MS newer: the body only", want: want({ last_activity_at: T0 + INDEX_ACTIVITY_MS }), write: { columns: [], next_deadline: false, holds_deadline: T0 + 30 * M } },
    { name: "activity from none", held: want({ last_activity_at: null }), want: want(), write: { columns: [], next_deadline: false, holds_deadline: T0 + 30 * M } },
    { name: "the deadline earlier: written at once", want: want({ next_deadline: T0 + 30 * M - 1 }), write: { columns: [], next_deadline: true, holds_deadline: T0 + 30 * M - 1 } },
    { name: "the deadline later, the indexed one not passed: kept", want: want({ next_deadline: T0 + 40 * M }), now: T0 + 30 * M - 1, write: false },
    { name: "the deadline later, the indexed one passed: written", want: want({ next_deadline: T0 + 40 * M }), now: T0 + 30 * M, write: { columns: [], next_deadline: true, holds_deadline: T0 + 40 * M } },
    { name: "a deadline where the index has none: written", held: want({ next_deadline: null }), want: want(), write: { columns: [], next_deadline: true, holds_deadline: T0 + 30 * M } },
    { name: "no deadline any more, the indexed one not passed: kept (it is earlier)", want: want({ next_deadline: null }), write: false },
    { name: "no deadline any more, the indexed one passed: written", want: want({ next_deadline: null }), now: T0 + 30 * M, write: { columns: [], next_deadline: true, holds_deadline: null } },
    { name: "a change of state: that column, the deadline kept", want: want({ next_deadline: T0 + 40 * M }, { state: "stopping" }), write: { columns: ["state"], next_deadline: false, holds_deadline: T0 + 30 * M } },
    { name: "a change of the record only (an extend): the body only", want: want({ record: "r2" }), write: { columns: [], next_deadline: false, holds_deadline: T0 + 30 * M } },
    { name: "released: its columns", want: want({}, { state: "released", released_at: now, billing_status: "awaiting_windows" }), write: { columns: ["state", "billing_status", "released_at"], next_deadline: false, holds_deadline: T0 + 30 * M } },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const w = indexWrite(r.held === undefined ? held : r.held, r.want, r.now ?? now);
      if (r.write === false) return expect(w).toEqual({ write: false });
      expect(w.write).toBe(true);
      if (!w.write) return;
      expect({ columns: w.columns, next_deadline: w.next_deadline, holds_deadline: w.holds.next_deadline }).toEqual(r.write);
      expect({ ...w.holds, next_deadline: null }).toEqual({ ...r.want, next_deadline: null });
    });
  }
});

describe("alarmMove: the one alarm is set only when it moves", () => {
  const now = T0;
  const rows: Array<[string, number | null, number | null, string]> = [
    ["already there", now + M, now + M, "keep"],
    ["none, none wanted", null, null, "keep"],
    ["later", now + M, now + 2 * M, "set"],
    ["earlier", now + 2 * M, now + M, "set"],
    ["none set", null, now + M, "set"],
    ["none wanted", now + M, null, "delete"],
    ["the alarm now running, due again at the same time: set again", now, now, "set"],
    ["already there, one ms ahead", now + 1, now + 1, "keep"],
  ];
  for (const [name, current, next, move] of rows) it(name, () => expect(alarmMove(current, next, now)).toBe(move));
});

describe("decide: a deployment's use beyond the gateway, as its machine reports it", () => {
  const model = { id: "sim/echo-1b", key: "machine-key-0123456789", engine_args: [] };
  const deployment = (patch: Partial<LeaseRecord> = {}) => lease("ready", { kind: "deployment", model, ttl_deadline: null, ...patch });
  const grace = 2 * M;
  const idle = 30 * M;
  const idleAt = T0 + grace + idle; // the fixture's activity + heartbeat grace + idle timeout
  /** What the agent reported: its last heartbeat at `beat`, a good read then or not (`read`), a failed one at `failed`. */
  const agent = (beat: number | null, read: number | null, failed: number | null = null): Observation => ({
    ...running,
    agent: { ...NO_AGENT, last_heartbeat_at: beat, metrics_read_at: read, metrics_failed_at: failed },
  });
  const idleDeadline = (l: LeaseRecord, obs: Observation, now: number) => deadlines(l, obs, now).find((c) => c.reason === "idle_timeout")?.at;

  interface Case {
    name: string;
    obs: Observation;
    l?: LeaseRecord;
    /** When the idle stop falls due. */
    at: number;
    observable: boolean;
  }
  const beat = T0 + 10 * M;
  const cases: Case[] = [
    { name: "good reads, no requests: idle counts from the last activity", obs: agent(beat, beat), at: idleAt, observable: true },
    { name: "requests in the metrics (machine_activity_at): grace and idle from that heartbeat", obs: agent(beat, beat), l: deployment({ machine_activity_at: beat }), at: beat + grace + idle, observable: true },
    { name: "metrics not read (a heartbeat that carried none): in use until the agent is silent, then grace", obs: agent(beat, null), at: beat + AGENT_SILENT_MS + grace + idle, observable: false },
    { name: "a failed read: the same from that heartbeat", obs: agent(beat, beat - 30 * S, beat), at: beat + AGENT_SILENT_MS + grace + idle, observable: false },
    { name: "a failed read, then a good one: its counters cover the gap, idle from the last activity", obs: agent(beat + M, beat + M, beat), at: idleAt, observable: true },
    { name: "an agent that never called: nothing the machine says, idle from the last activity", obs: running, at: idleAt, observable: false },
    { name: "a heartbeat from the session before says nothing", obs: agent(T0 + 5 * M, null), l: deployment({ session_started_at: T0 + 6 * M, last_activity_at: T0 + 6 * M }), at: T0 + 6 * M + grace + idle, observable: false },
    { name: "gateway traffic after the machine's word: from the traffic", obs: { ...agent(beat, null), agent: { ...agent(beat, null).agent!, gateway_ended_at: beat + 5 * M } }, at: beat + 5 * M + grace + idle, observable: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      // Its silence already reported (agent_silent, once per silence), so that the idle stop is what falls due.
      const base = c.l ?? deployment();
      const l = { ...base, job: { ...NO_JOB_PROGRESS, silent_after: c.obs.agent?.last_heartbeat_at ?? null } };
      expect(idleDeadline(l, c.obs, beat)).toBe(c.at);
      expect(decide(l, c.obs, c.at - 1)).toMatchObject({ action: "wait", next: "stop", reason: "idle_timeout", at: c.at });
      expect(decide(l, c.obs, c.at)).toMatchObject({ action: "stop", reason: "idle_timeout" });
      // Idle stop is never off while the policy has an idle_timeout: the guard says how use is watched.
      const guard = guardOf(l, c.obs, beat + S);
      expect(guard.activity).toMatchObject({ observable: c.observable, idle_stop: "on" });
      if (!c.observable) expect(guard.activity!.note).toMatch(/not observable/);
    });
  }

  it("what the machine reports counts only within its org's ceiling, from the session's start", () => {
    const ceiling = 4 * H;
    // Busy by its metrics at every heartbeat, or unreadable at every one: either way the machine alone says so.
    for (const [why, l, obs] of [
      ["busy", deployment({ machine_activity_max: ceiling, machine_activity_at: T0 + 10 * H }), agent(T0 + 10 * H, T0 + 10 * H)],
      ["unreadable", deployment({ machine_activity_max: ceiling }), agent(T0 + 10 * H, null, T0 + 10 * H)],
    ] as const) {
      expect(idleDeadline(l, obs, T0 + 10 * H), why).toBe(T0 + ceiling + idle);
      expect(decide(l, obs, T0 + 10 * H + S), why).toMatchObject({ action: "stop", reason: "idle_timeout" });
      expect(guardOf(l, obs, T0 + 10 * H).activity!.machine_activity_until).toBe(new Date(T0 + ceiling).toISOString());
    }
    // The ceiling is the machine's only: a user's heartbeat or the gateway's traffic later still counts.
    const used = deployment({ machine_activity_max: ceiling, machine_activity_at: T0 + 10 * H, last_activity_at: T0 + 9 * H });
    expect(idleDeadline(used, agent(T0 + 10 * H, T0 + 10 * H), T0 + 10 * H)).toBe(T0 + 9 * H + grace + idle);
    // Without a setting of its org's, 24 hours; a restart is a new session, with the ceiling afresh.
    expect(idleDeadline(deployment({ machine_activity_at: T0 + 30 * H }), agent(T0 + 30 * H, T0 + 30 * H), T0 + 30 * H)).toBe(T0 + DEFAULT_MACHINE_ACTIVITY_MAX_MS + idle);
    const restarted = deployment({ machine_activity_max: ceiling, session_started_at: T0 + 10 * H, machine_activity_at: T0 + 11 * H });
    expect(idleDeadline(restarted, agent(T0 + 11 * H, T0 + 11 * H), T0 + 11 * H)).toBe(T0 + 11 * H + grace + idle);
  });

  it("a lease that serves no model keeps its idle stop, and its guard names no activity", () => {
    const plain = deployment({ model: null });
    expect(decide(plain, running, idleAt)).toMatchObject({ action: "stop", reason: "idle_timeout" });
    expect(guardOf(plain, running, idleAt).activity).toBeNull();
  });

  it("the hard caps stay in force whatever the machine says", () => {
    const capped = deployment({ session_started_at: T0, policy: { ...lease("ready").policy, max_lifetime: 24 * H, idle_timeout: null } });
    const unreadable = agent(T0 + 24 * H - 10 * S, null);
    expect(decide(capped, unreadable, T0 + 24 * H - 1)).toMatchObject({ action: "wait", next: "release", reason: "max_lifetime" });
    expect(decide(capped, unreadable, T0 + 24 * H)).toMatchObject({ action: "release", reason: "max_lifetime" });
    const budget = deployment({ policy: { ...lease("ready").policy, max_session_usd: 3 } });
    expect(decide(budget, agent(T0 + 90 * M, null), T0 + 90 * M)).toMatchObject({ action: "release", reason: "budget_exceeded" });
  });

  it("with no idle_timeout, the guard says idle stop is off for that reason", () => {
    const g = guardOf(deployment({ policy: { ...lease("ready").policy, idle_timeout: null } }), agent(idleAt, idleAt), idleAt);
    expect(g.activity).toMatchObject({ observable: true, idle_stop: "off" });
    expect(g.activity!.note).toMatch(/no idle_timeout/);
  });
});
