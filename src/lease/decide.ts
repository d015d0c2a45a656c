/**
 * The one place that decides what a lease should do now (docs/design.md "Shape"; STYLE.md rule 1).
 * Pure: no I/O, no clock. The alarm, the cron backstop and `GET /v1/leases/:id` all call it;
 * nothing else decides to stop or destroy.
 */
import { sessionBudgetDeadline } from "../billing/accrual";
import { usdToMicros } from "../billing/money";
import { rentedAboveReserved } from "./rent";
import { lossOf, recovers } from "./recovery";
import { OUTPUTS_WAIT_MS } from "./policy";
import { hasMachine, inSession, NO_AGENT, NO_JOB_PROGRESS, type AgentFacts, type LeaseRecord, type Observation, type OutputsWait, type Reason } from "./state";

/** What the policy can ask the run loop to do; a step that fails is recorded as `<action>_failed`. */
export const STEP_ACTIONS = [
  "provision", // create (or adopt, after listing by label) a machine
  "poll", // read the machine back from the provider
  "mark_ready",
  "mark_stopped",
  "stop",
  "start",
  "replace_host", // destroy this machine, exclude its host, rent the next fallback
  "recover", // a job lost its machine (recovery.ts): destroy it or prove it gone, then rent the next and run the command again
  "mark_exited", // record the exit the agent reported
  "signal", // queue `signal` (TERM, then KILL) for the command through the agent
  "diagnose", // a stall: record `stalled`, queue the diagnostics exec
  "report_silent", // the agent's heartbeats stopped: record `agent_silent`
  "reserve", // the machine rents above what the lease holds against its org's caps: re-reserve, or release
  "release", // destroy every machine of the lease, then released
] as const;

/** What a lease's guard may name (`guardOf`): a step, or `none` (nothing to do, ever: released). */
export const GUARD_ACTIONS = ["none", ...STEP_ACTIONS] as const;

/** The policy's answer: a step, `none`, or `wait` (nothing to do until `at`). */
export type Action = (typeof GUARD_ACTIONS)[number] | "wait";

export interface Decision {
  action: Action;
  reason: Reason | null;
  /** When the action is due; at or before `now` means now. null: never. */
  at: number | null;
  /** With `wait`: the action that falls due at `at`. */
  next?: Exclude<Action, "wait">;
  /** With `signal`: which one. */
  signal?: "TERM" | "KILL";
  /** With `diagnose`: when the output went silent; with `report_silent`: the last heartbeat. */
  since?: number;
}

/** Statuses of a machine that runs (or is about to), and so bills at its full rate. */
const RUNNING: readonly string[] = ["provisioning", "starting", "running"];

/** The first read-back of the machine after anything changes; later reads back off from it. */
export const POLL_MS = 1_000;
/** The longest wait between two read-backs while a machine is being set up or stopped. */
export const POLL_MAX_MS = 15_000;
/**
 * After lessor starts a stopped machine, a status of `error` this soon is read as still starting,
 * not as a failed host: some providers (Vast) report the previous `exited` state for a moment
 * after a start, and replacing the host would destroy the user's disk (docs/design.md "Sessions").
 */
export const RESTART_ERROR_GRACE_MS = 60_000;

/**
 * How long after a read-back the next one is due, with `elapsedMs` since the last change of the
 * lease's state or of the machine's observed status: 1 s, then 2, 4, 8, and 15 s from then on
 * (reads at 1, 3, 7, 15, 30, 45 s...). A real boot takes minutes, and every read is a provider
 * call against its rate limit.
 */
export function pollInterval(elapsedMs: number): number {
  let interval = POLL_MS;
  // Each interval is kept until the read it leads to: reads at 1, 1+2, 1+2+4... seconds.
  while (2 * interval - POLL_MS <= elapsedMs && interval < POLL_MAX_MS) interval *= 2;
  return Math.min(interval, POLL_MAX_MS);
}

/** When the machine is next read back: the schedule restarts at every change (state or status). */
export function pollAt(l: LeaseRecord): number {
  if (l.observed_at === null) return 0;
  const changed = Math.max(l.state_since, l.observed_change_at ?? 0);
  return l.observed_at + pollInterval(l.observed_at - changed);
}
/** A stop the provider accepted but did not carry out is issued again after this. */
export const STOP_REISSUE_MS = 30_000;
/** Stops failing this long escalate to a destroy (`stop_failed`). */
export const STOP_ESCALATE_MS = 30 * 60_000;

export interface Candidate {
  action: Exclude<Action, "wait">;
  reason: Reason | null;
  at: number;
  signal?: "TERM" | "KILL";
  since?: number;
}

/** An agent whose last heartbeat is this old is silent (`agent_silent`; a kill answers `unknown`). */
export const AGENT_SILENT_MS = 90_000;

/** Hard caps (ttl, max_lifetime, max_session_usd): they apply whatever else is true (guarantee 4). */
export function hardCapDeadlines(l: LeaseRecord): Candidate[] {
  const out: Candidate[] = [];
  if (l.ttl_deadline !== null) out.push({ action: "release", reason: "ttl_expired", at: l.ttl_deadline });
  // Starting, the machine is still stopped: the session before the stop is over, and the next
  // begins when the provider accepts the start (transitions.ts `started`). Its caps count from then,
  // not from the session before, which would release a lease stopped longer than max_lifetime at
  // once (docs/design.md "Sessions").
  if (l.session_started_at !== null && inSession(l.state) && l.state !== "starting") {
    if (l.policy.max_lifetime !== null) {
      out.push({ action: "release", reason: "max_lifetime", at: l.session_started_at + l.policy.max_lifetime });
    }
    if (l.policy.max_session_usd !== null) {
      // The moment the session's accrued estimate reaches the cap, worked out from the accrual's
      // segments, so the alarm fires then.
      const at = sessionBudgetDeadline(l.billing.segments, l.session_started_at, usdToMicros(l.policy.max_session_usd));
      if (at !== null) out.push({ action: "release", reason: "budget_exceeded", at });
    }
  }
  return out;
}


/**
 * When a ready lease stops being in use: its last activity (a user's heartbeat, exec or action, a
 * gateway request's end, a job's exit) plus grace, its lock's end, a gateway request in flight, or
 * what the machine itself reports (`machineUseUntil`), whichever is last. Never "no end": idle is
 * not decided by the machine alone (docs/security.md "Idle is not decided by the machine alone"),
 * and hard caps apply whatever this says.
 */
export function inUseUntil(l: LeaseRecord, agent: AgentFacts): number {
  const exit = exitOf(l, agent);
  const last = Math.max(l.last_activity_at ?? l.ready_at ?? l.state_since, exit?.at ?? 0, agent.gateway_ended_at ?? 0);
  return Math.max(last + l.policy.heartbeat_grace, l.lock_until ?? 0, inFlightUntil(agent), machineUseUntil(l, agent));
}

/**
 * How long what the machine reports of itself may keep a deployment in use in one session, unless
 * its org set another (`machine_activity_max`, src/orgs/settings.ts): a machine that says it is
 * busy, or that it cannot tell, is believed no longer than this after its session began.
 */
export const DEFAULT_MACHINE_ACTIVITY_MAX_MS = 24 * 3_600_000;

/** When what the machine reports stops counting as use: its session's start plus its org's ceiling. */
export function machineActivityEnd(l: LeaseRecord): number {
  return (l.session_started_at ?? l.state_since) + (l.machine_activity_max ?? DEFAULT_MACHINE_ACTIVITY_MAX_MS);
}

/** `t` when it falls in the lease's current session, else null. */
function thisSession(l: LeaseRecord, t: number | null | undefined): number | null {
  return t !== null && t !== undefined && t >= (l.session_started_at ?? 0) ? t : null;
}

/**
 * How long the machine's own word keeps the lease in use (0: it says nothing that does):
 * - a job's command runs until its exit, as long as its agent is heard: until heartbeat_grace after
 *   the agent falls silent (AGENT_SILENT_MS after its last heartbeat this session, or after the
 *   lease became ready when it never beat);
 * - a deployment's model server: the requests its metrics showed (heartbeat_grace after the
 *   heartbeat that saw them), and a heartbeat whose metrics could not be read, since lessor cannot
 *   tell use from none then (until heartbeat_grace after the agent falls silent); never past
 *   `machineActivityEnd`. A silent agent says nothing: the lease idles out.
 */
export function machineUseUntil(l: LeaseRecord, agent: AgentFacts): number {
  const grace = l.policy.heartbeat_grace;
  if (l.kind === "job" && l.cmd !== null && exitOf(l, agent) === null) {
    return (heardUntil(l, agent) ?? l.ready_at ?? l.state_since) + AGENT_SILENT_MS + grace;
  }
  if (!l.model) return 0;
  const active = thisSession(l, l.machine_activity_at);
  const unread = unreadBeat(l, agent);
  // An unread heartbeat is use; one lost with a restarted object may have been unread too.
  const until = Math.max(active === null ? 0 : active + grace, unread === null ? 0 : Math.max(unread, agent.beat_bound ?? 0) + AGENT_SILENT_MS + grace);
  return until === 0 ? 0 : Math.min(until, machineActivityEnd(l));
}

/**
 * The agent's last heartbeat of this session when its model-server metrics could not be read then
 * (a failed read, or a heartbeat that carried none), or null. The agent records a heartbeat and its
 * read at one time, so a heartbeat is unread when no good read is recorded at its time. An earlier
 * gap says nothing once a good read came after it: the counters it compares with are the last good
 * read's, so requests made in the gap show as growth (model-metrics.ts `readModelMetrics`).
 */
export function unreadBeat(l: LeaseRecord, agent: AgentFacts): number | null {
  const beat = thisSession(l, agent.last_heartbeat_at);
  return beat !== null && beat !== agent.metrics_read_at ? beat : null;
}

/**
 * The longest one gateway request counts as in use. A request whose end never reached the lease
 * (its Worker died mid-stream) is believed ended this long after it began, so a lost end cannot
 * hold a deployment up for ever.
 */
export const REQUEST_MAX_MS = 60 * 60_000;

/**
 * How long the gateway's requests in flight keep the lease in use (0: none open): each from its
 * start until it ends, at most REQUEST_MAX_MS. Its end is recorded as activity (`last_activity_at`).
 */
export function inFlightUntil(agent: AgentFacts): number {
  return Math.max(0, ...(agent.in_flight ?? []).map((start) => start + REQUEST_MAX_MS));
}

/**
 * Whether lessor sees a model server's use beyond its gateway (docs/deployments.md "Activity"):
 * the agent read its metrics in this session, within AGENT_SILENT_MS, and no read failed since.
 * While it does not, requests may reach the machine that lessor never hears of: each heartbeat
 * then counts as use (`machineUseUntil`), within the org's ceiling, until the agent falls silent.
 */
export function modelActivityObservable(l: LeaseRecord, agent: AgentFacts, now: number): boolean {
  const read = agent.metrics_read_at ?? null;
  if (read === null || read < (l.session_started_at ?? 0) || now - read >= AGENT_SILENT_MS) return false;
  return (agent.metrics_failed_at ?? null) === null || agent.metrics_failed_at! <= read;
}

/** How a ready deployment's use is watched, as its guard shows it; null for a lease that serves no model or is not ready. */
export function activityOf(l: LeaseRecord, agent: AgentFacts, now: number) {
  if (!l.model || l.state !== "ready") return null;
  const observable = modelActivityObservable(l, agent, now);
  const read = agent.metrics_read_at ?? null;
  const active = thisSession(l, l.machine_activity_at);
  const idle = l.policy.idle_timeout !== null;
  const end = machineActivityEnd(l);
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  const ceiling = "what the machine reports counts until machine_activity_until";
  const note = !idle
    ? "idle stop is off: the policy has no idle_timeout"
    : observable
      ? `idle stop is on: gateway requests and those the model server's metrics show are activity; ${ceiling}`
      : `idle stop is on; activity on the machine is not observable: a heartbeat counts as use until the agent is silent ${AGENT_SILENT_MS / 1000} s; ${ceiling}`;
  return {
    observable,
    metrics_read_at: iso(read),
    machine_activity_at: iso(active),
    machine_activity_until: new Date(end).toISOString(),
    idle_stop: idle ? ("on" as const) : ("off" as const),
    note,
  };
}

/** The exit the agent reported in this session (one from a session before is not this command's). */
export function exitOf(l: LeaseRecord, agent: AgentFacts): AgentFacts["exit"] {
  return agent.exit !== null && agent.exit.at >= (l.session_started_at ?? 0) ? agent.exit : null;
}

/**
 * Until when the agent counts as heard this session: its last heartbeat, or, when its object
 * started again since and has not heard one itself, the latest a heartbeat the object before held
 * in memory can have come (`beat_bound`, src/occupant/heartbeat.ts). A restart so never makes a
 * silence out of a heartbeat that was only not written. null: no heartbeat this session.
 */
export function heardUntil(l: LeaseRecord, agent: AgentFacts): number | null {
  const beat = thisSession(l, agent.last_heartbeat_at);
  return beat === null ? null : Math.max(beat, agent.beat_bound ?? 0);
}

/**
 * When the agent's current silence began (its last heartbeat as known), or null while it beats (or
 * never beat this session). Silent: AGENT_SILENT_MS after it was last heard (`heardUntil`).
 */
export function agentSilentSince(l: LeaseRecord, agent: AgentFacts, now: number): number | null {
  const heard = heardUntil(l, agent);
  return heard !== null && now - heard >= AGENT_SILENT_MS ? agent.last_heartbeat_at : null;
}

/**
 * The command's rules in a ready lease (docs/design.md "The command"): what its exit does
 * (`on_exit`), the runtime cap and an inactivity terminate (TERM, KILL after kill_grace, then the
 * release), a stall's diagnosis, and an agent that stopped beating.
 */
function commandRules(l: LeaseRecord, agent: AgentFacts, now: number, due: (c: Candidate) => void): void {
  const p = l.policy;
  const job = l.job ?? NO_JOB_PROGRESS;
  const exit = exitOf(l, agent);
  if (exit !== null && job.exit?.at !== exit.at) return due({ action: "mark_exited", reason: null, at: now });
  if (exit !== null) {
    // After lessor's own TERM or KILL, the release gives the cause, whatever on_exit says.
    if (job.kill_cause !== null) due({ action: "release", reason: job.kill_cause, at: now });
    else if (p.on_exit === "release") due({ action: "release", reason: "job_exited", at: now });
    else if (p.on_exit === "stop") due({ action: l.can_stop ? "stop" : "release", reason: "job_exited", at: now });
    return;
  }
  // Once per silence: a silence already reported began at or after the last heartbeat known (one
  // reported before a restart may have begun at a heartbeat that was held in memory, and lost).
  const beat = agent.last_heartbeat_at;
  const heard = heardUntil(l, agent);
  if (beat !== null && heard !== null && (job.silent_after ?? -Infinity) < beat) {
    due({ action: "report_silent", reason: null, at: heard + AGENT_SILENT_MS, since: beat });
  }
  if (l.cmd === null) return;
  const started = l.ready_at ?? l.state_since;
  if (job.kill_cause !== null) {
    // Destroying the machine ends the command for certain when no exit came after the KILL.
    if (job.kill_at === null) due({ action: "signal", signal: "KILL", reason: job.kill_cause, at: (job.term_at ?? now) + p.kill_grace });
    else due({ action: "release", reason: job.kill_cause, at: job.kill_at + p.kill_grace });
    return;
  }
  if (p.max_runtime !== null) due({ action: "signal", signal: "TERM", reason: "max_runtime", at: started + p.max_runtime });
  if (p.max_inactivity !== null) {
    const quietSince = Math.max(agent.last_output_at ?? 0, started);
    const at = quietSince + p.max_inactivity;
    if (p.inactivity_action === "terminate") due({ action: "signal", signal: "TERM", reason: "inactivity", at });
    else if (job.stalled_since !== quietSince) due({ action: "diagnose", reason: "inactivity", at, since: quietSince });
  }
}

/**
 * Every deadline the lease has now, unsorted: the hard caps and what its state's rules set
 * (docs/design.md "Lease states"). `decide` acts on the earliest. No live state leaves only the
 * hard caps: each has a clock of its own that no observation turns off (a boot or startup timeout,
 * the idle timeout where the policy has one, the escalation of a stop, stopped_ttl), so a step that
 * keeps failing (a release whose write fails, a stop the provider accepts and never carries out,
 * a start it refuses) still ends at that clock rather than at max_lifetime (docs/security.md "A failing deployment always releases").
 */
export function deadlines(l: LeaseRecord, obs: Observation, now: number): Candidate[] {
  if (l.state === "released") return [];
  if (l.state === "releasing") {
    // A release waiting for the outputs goes on once the agent has them up, or at its bound,
    // whatever the reason (a hard cap's too): the bound is the wait's own clock (docs/artifacts.md).
    const w = l.outputs_wait;
    const at = w && !outputsSettled(l, w, obs.agent ?? NO_AGENT) ? w.until : now;
    return [{ action: "release", reason: l.release_reason, at }];
  }

  const candidates = hardCapDeadlines(l);
  const due = (c: Candidate) => candidates.push(c);
  const m = obs.machine;
  const retryAt = Math.max(now, l.retry_at ?? now);

  // What is rented never costs more than what was reserved: a machine whose provider rents it above
  // the rate the lease holds re-reserves (or is released) before the lease goes on (rent.ts).
  const unreserved = (l.state === "booting" || l.state === "ready") && rentedAboveReserved(l);
  if (unreserved) due({ action: "reserve", reason: null, at: retryAt });

  switch (l.state) {
    case "pending":
    case "provisioning":
      due({ action: "provision", reason: null, at: retryAt });
      break;

    case "booting": {
      const failed = modelServerFailure(l, obs);
      if (m === null) due({ action: "replace_host", reason: "provider_lost", at: now });
      // A spot machine taken back before it was ready: a job that recovers restarts (its command may
      // have begun), any other lease tries another host, as for one that failed to boot.
      else if (m?.preempted) due({ action: recovers(l, "preempted") ? "recover" : "replace_host", reason: "preempted", at: now });
      else if (m?.status === "error" && !restarting(l, now)) due({ action: "replace_host", reason: "host_failed", at: now });
      else if (m?.status === "running" && obs.app_ready !== false && failed === null && !unreserved) due({ action: "mark_ready", reason: null, at: now });
      else {
        if (failed !== null) due({ action: "release", reason: failed, at: now });
        else due({ action: "poll", reason: null, at: Math.max(retryAt, pollAt(l)) });
        // The boot's own clock is never off, whatever else is due: a model server's failure whose
        // release cannot be written ends at it. Not read this run: the status last read.
        const status = m === undefined ? l.machine_status : m.status;
        if (status === "running" && l.policy.startup_timeout !== null) {
          due({ action: "release", reason: "startup_timeout", at: (l.session_started_at ?? l.state_since) + l.policy.startup_timeout });
        } else {
          due({ action: "replace_host", reason: "boot_timeout", at: l.state_since + l.policy.boot_timeout });
        }
      }
      break;
    }

    case "ready": {
      // A machine gone, taken back or failed: a job that recovers from it restarts on a new one
      // (recovery.ts); any other lease, or one out of restarts, is released with the loss.
      const loss = lossOf(obs);
      if (loss !== null) due({ action: recovers(l, loss) ? "recover" : "release", reason: loss, at: now });
      else if (m?.status === "stopped") due({ action: "mark_stopped", reason: "provider_stopped", at: now });
      else {
        const agent = obs.agent ?? NO_AGENT;
        if (l.policy.idle_timeout !== null) {
          due({ action: l.can_stop ? "stop" : "release", reason: "idle_timeout", at: inUseUntil(l, agent) + l.policy.idle_timeout });
        }
        commandRules(l, agent, now, due);
      }
      break;
    }

    case "stopping":
      if (m === null) due({ action: "release", reason: "provider_lost", at: now });
      else if (m?.status === "stopped" || m?.status === "error") due({ action: "mark_stopped", reason: null, at: now });
      else {
        // A stop that keeps failing, or that the provider keeps accepting and never carries out,
        // is given up for a destroy: stopping has a clock of its own.
        due({ action: "release", reason: "stop_failed", at: l.state_since + STOP_ESCALATE_MS });
        // A stop that was never issued, failed, or was accepted but not carried out, goes again.
        const again = l.stop_issued_at === null || l.stop_failing_since !== null ? retryAt : l.stop_issued_at + STOP_REISSUE_MS;
        due({ action: "stop", reason: null, at: Math.max(again, retryAt) });
        due({ action: "poll", reason: null, at: Math.max(retryAt, pollAt(l)) });
      }
      break;

    case "stopped":
      if (m === null) due({ action: "release", reason: "provider_lost", at: now });
      // Taken back while stopped: it will never start again.
      else if (m?.preempted) due({ action: "release", reason: "preempted", at: now });
      // Started behind lessor's back (a provider's console, a provider's bug): it bills at full
      // rate, so it is stopped again at once (docs/design.md "Money 3").
      else if (m && RUNNING.includes(m.status)) due({ action: "stop", reason: "unexpected_start", at: now });
      if (l.policy.stopped_ttl !== null) {
        due({ action: "release", reason: "stopped_ttl", at: (l.stopped_at ?? l.state_since) + l.policy.stopped_ttl });
      }
      break;

    case "starting":
      if (m === null) due({ action: "release", reason: "provider_lost", at: now });
      else if (m?.preempted) due({ action: "release", reason: "preempted", at: now });
      else due({ action: "start", reason: null, at: retryAt });
      // Until a start is accepted the machine is stopped, and its disk bills: stopped_ttl still
      // counts, so a start the provider keeps refusing ends there.
      if (l.policy.stopped_ttl !== null) {
        due({ action: "release", reason: "stopped_ttl", at: (l.stopped_at ?? l.state_since) + l.policy.stopped_ttl });
      }
      break;
  }
  return candidates;
}

/**
 * Releases that do not wait for the outputs: those with no machine, or no agent, to wait for (the
 * machine is gone or failed, was never up, or is stopped), and the two caps that bound money and
 * time absolutely, `budget_exceeded` and `max_lifetime` (guarantee 4: a wait would bill past the
 * ceiling the reservation holds). Everything else (a user's end, the ttl, an idle timeout, a
 * kill's release, a preemption) waits for them when `collectsOutputs` says so.
 */
export const NO_OUTPUTS_WAIT: readonly Reason[] = [
  "provider_lost", "host_failed", "boot_timeout", "no_capacity", "provider_refused", "quota_exceeded", "stop_failed", "stopped_ttl", "provider_stopped",
  "budget_exceeded", "max_lifetime",
];

/**
 * Whether a release (`l` releasing, its wait not yet decided) first has the agent collect the
 * command's outputs (docs/artifacts.md): a job or scratch lease with a command, whose machine was
 * last seen running, released for a reason that leaves a machine (`NO_OUTPUTS_WAIT`), whose agent
 * said this session that it can collect (agent.sh, running a command, long-polls with
 * `collect=1`) and was heard within `heartbeat_grace`, and whose command has not reported its exit
 * (the agent uploads before it reports one, so those outputs are up already).
 */
export function collectsOutputs(l: LeaseRecord, agent: AgentFacts, now: number): boolean {
  if (l.state !== "releasing" || l.kind === "deployment" || l.cmd === null || l.machine_id === null) return false;
  // Last seen up (a booting machine's agent may run the command before lessor reads it running);
  // that its agent is heard below is the proof it runs.
  const down = l.machine_status === null || ["stopped", "error", "terminated"].includes(l.machine_status);
  if (down || (l.release_reason !== null && NO_OUTPUTS_WAIT.includes(l.release_reason))) return false;
  const collects = thisSession(l, agent.collects_at);
  if (collects === null || exitOf(l, agent) !== null) return false;
  const heard = Math.max(collects, thisSession(l, agent.last_heartbeat_at) ?? 0);
  return now - heard < l.policy.heartbeat_grace;
}

/** The wait a release that collects begins at `now`: to `outputs_wait` later at most. */
export function outputsWaitFrom(l: LeaseRecord, commandId: string, now: number): OutputsWait {
  return { since: now, until: now + (l.policy.outputs_wait ?? OUTPUTS_WAIT_MS), command_id: commandId };
}

/** The outputs a release waits for are settled: the agent answered its `collect`, or reported the command's exit (after its uploads). */
export function outputsSettled(l: LeaseRecord, w: OutputsWait, agent: AgentFacts): boolean {
  const collected = agent.collected_at ?? null;
  return (collected !== null && collected >= w.since) || exitOf(l, agent) !== null;
}

export function decide(l: LeaseRecord, obs: Observation, now: number): Decision {
  if (l.state === "released") return { action: "none", reason: null, at: null };
  return earliest(deadlines(l, obs, now), now);
}

/** The earliest of `candidates` as a decision: due, or waited for. At a tie, a release beats anything else (hard caps first). */
function earliest(candidates: Candidate[], now: number): Decision {
  if (candidates.length === 0) return { action: "wait", reason: null, at: null };
  const sorted = [...candidates].sort((a, b) => a.at - b.at || rank(a.action) - rank(b.action));
  const first = sorted[0]!;
  if (first.at <= now) return first;
  return { action: "wait", reason: first.reason, at: first.at, next: first.action };
}

/**
 * Why a booting lease that serves a model fails closed now (docs/deployments.md "Ready"), or null:
 * its model server exited before it answered (`model_server_failed`; the exit is the agent's, in
 * this session), or it answered without its key (`endpoint_exposed`): a URL is never handed out
 * for a server anyone may use.
 */
export function modelServerFailure(l: LeaseRecord, obs: Observation): Reason | null {
  if (!l.model) return null;
  if (exitOf(l, obs.agent ?? NO_AGENT) !== null) return "model_server_failed";
  if (obs.machine?.status === "running" && obs.exposed === true) return "endpoint_exposed";
  return null;
}

/** A machine lessor started again (a stopped session's restart) within the grace: `error` is not yet believed. */
export function restarting(l: LeaseRecord, now: number): boolean {
  const issued = l.start_issued_at ?? null;
  return issued !== null && now - issued < RESTART_ERROR_GRACE_MS;
}

function rank(a: Action): number {
  return a === "release" ? 0 : a === "replace_host" || a === "recover" ? 1 : a === "stop" ? 2 : a === "reserve" ? 3 : 4;
}

/** The guard as `GET /v1/leases/:id` shows it: what the policy would do, why, and when. */
export function guardOf(l: LeaseRecord, obs: Observation, now: number) {
  let d = decide(l, obs, now);
  // The silence watchdog moves on at every heartbeat: while it is not due, the guard names the
  // policy's next move behind it, which is what the lease will do.
  if (d.action === "wait" && d.next === "report_silent") {
    d = earliest(deadlines(l, obs, now).filter((c) => c.action !== "report_silent"), now);
  }
  const action = d.action === "wait" ? (d.next ?? "none") : d.action;
  const silent = l.state === "ready" ? agentSilentSince(l, obs.agent ?? NO_AGENT, now) : null;
  return {
    action,
    reason: d.reason,
    at: d.at === null ? null : new Date(d.at).toISOString(),
    due: d.action !== "wait" && d.action !== "none",
    /** The last heartbeat of an agent silent for AGENT_SILENT_MS or more (a kill answers `unknown`); null while it beats. */
    agent_silent_since: silent === null ? null : new Date(silent).toISOString(),
    /** A deployment's: whether lessor sees its use, and so whether idle stop is on (null: the lease serves no model). */
    activity: activityOf(l, obs.agent ?? NO_AGENT, now),
  };
}

/** What the run loop does next (docs/design.md "Where each rule lives"). */
export type Move =
  /** Read the machine back from the provider, then ask again. */
  | { move: "observe" }
  /** Carry out `decision` (never `wait`, `none` or `poll`). */
  | { move: "act"; decision: Decision }
  /** Nothing more this run; the alarm picks up the rest. */
  | { move: "done" };

/**
 * The run loop's next move, with `obs` what this run has read of the machine so far (`machine`
 * undefined: not read yet). A lease that holds a machine reads it back before it acts, unless it
 * is backing off (`retry_at` ahead) or a release falls due whatever the machine says (a hard cap,
 * a user's end): every call before the destroy is time it bills. A poll is one read per run.
 */
export function nextMove(l: LeaseRecord | null, obs: Observation, now: number): Move {
  if (!l || l.state === "released") return { move: "done" };
  const waiting = l.retry_at !== null && l.retry_at > now;
  // Not yet read, the machine says nothing to `decide`: a release due now is due whatever it says.
  const d = decide(l, obs, now);
  if (obs.machine === undefined && hasMachine(l) && !waiting && d.action !== "release") return { move: "observe" };
  // A poll falls due only in a state that holds a machine and outside a backoff: read above, so done.
  if (d.action === "wait" || d.action === "none" || d.action === "poll") return { move: "done" };
  return { move: "act", decision: d };
}

/**
 * When the lease's one alarm is set (STYLE.md rule 7): at the nearest deadline `decide` returns,
 * and for an action already due, at once or when its backoff ends. null: no alarm.
 */
export function alarmAt(l: LeaseRecord, now: number, agent: AgentFacts): number | null {
  const d = decide(l, { machine: undefined, agent }, now);
  if (d.action !== "wait" && d.action !== "none") return Math.max(now, l.retry_at ?? now);
  return d.at;
}

/**
 * What becomes of the object's one alarm, set at `current` (null: none), when it should be at
 * `next`: left alone when it already is there and still ahead (a heartbeat that moves no
 * deadline), else set or deleted.
 * An alarm is never left earlier than `next`: a run the alarm starts reads the machine back before
 * anything else (`nextMove`), so an early fire would cost a provider call to save one alarm write.
 */
export function alarmMove(current: number | null, next: number | null, now: number): "keep" | "set" | "delete" {
  // One at or before `now` may be the alarm now running, which ends with its run: set again.
  if (current === next && (current === null || current > now)) return "keep";
  return next === null ? "delete" : "set";
}

// ---- the D1 index ------------------------------------------------------------------------------

/**
 * Columns of the lease index (D1 `leases`, docs/storage.md) that follow the lease's transitions.
 * Each one a reader filters, joins or sorts on (state, machine_id, billing_status, billed_from,
 * released_at) is also in a secondary index, and so costs a further row each time it is written.
 */
export const INDEX_COLUMNS = ["state", "machine_id", "release_reason", "billing_status", "billed_from", "released_at", "gpu_class", "accrual"] as const;
export type IndexColumn = (typeof INDEX_COLUMNS)[number];

/** What the lease index holds of a lease (or should): the object keeps the last one it wrote. */
export interface IndexFacts {
  columns: { [K in IndexColumn]: string | number | null };
  /** When the object must act next; the backstop sweep pokes the lease once it has passed. */
  next_deadline: number | null;
  /** Shown in the listed body only. */
  last_activity_at: number | null;
  /** A digest of the record without its version and its last activity: every other change shows in the listed body. */
  record: string;
}

/**
 * How stale the listed `last_activity_at` may be: a heartbeat that moves it by less is not written
 * to the index (the lease's own view, `GET /v1/leases/:id`, always has it).
 */
export const INDEX_ACTIVITY_MS = 5 * 60_000;

/**
 * What the index write writes: nothing; every column (`"all"`: a lease the object has not
 * indexed yet, or no longer knows it did); or the columns that changed. Any write also rewrites
 * the row's body, version and estimate, which no secondary index holds. `holds`: what the index
 * holds once it lands.
 */
export type IndexWrite = { write: false } | { write: true; columns: "all" | IndexColumn[]; next_deadline: boolean; holds: IndexFacts };

/**
 * The index write after a change of the lease (or none), given what the index holds (`held`, null:
 * unknown) and what it would hold now (`want`). Pure.
 *
 * The backstop sweep pokes a lease once its indexed deadline has passed, and the poked object acts
 * on its own deadlines (docs/design.md). So an indexed deadline EARLIER than the true one is safe
 * (one early poke, after which the object writes the true one), but a LATER one, or none, would
 * leave the lease unswept past its deadline. A deadline that moves later (an idle timeout a
 * heartbeat pushes back) is therefore written only once the indexed one has passed; one that
 * moves earlier is written at once.
 */
export function indexWrite(held: IndexFacts | null, want: IndexFacts, now: number): IndexWrite {
  if (held === null) return { write: true, columns: "all", next_deadline: true, holds: want };
  const columns = INDEX_COLUMNS.filter((c) => held.columns[c] !== want.columns[c]);
  const deadline = deadlineStale(held.next_deadline, want.next_deadline, now);
  const activity = want.last_activity_at !== held.last_activity_at && (held.last_activity_at === null || want.last_activity_at === null || Math.abs(want.last_activity_at - held.last_activity_at) >= INDEX_ACTIVITY_MS);
  if (columns.length === 0 && !deadline && !activity && want.record === held.record) return { write: false };
  return { write: true, columns, next_deadline: deadline, holds: deadline ? want : { ...want, next_deadline: held.next_deadline } };
}

/** Whether the indexed deadline `held` must be replaced by `want` (see `indexWrite`). */
function deadlineStale(held: number | null, want: number | null, now: number): boolean {
  if (held === want) return false;
  if (held === null) return true; // the sweep would never look
  if (want !== null && want < held) return true; // the sweep would look too late
  return held <= now; // earlier than the truth: safe until it passes, then replaced
}
