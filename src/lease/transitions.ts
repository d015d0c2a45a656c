/**
 * The lease's transitions (STYLE.md rule 6): what each one changes in the record, and which user
 * action is allowed in which state. Pure, like decide.ts (STYLE.md rule 1: no I/O, no clock, `now`
 * is passed in): decide.ts says what falls due, these say what the record becomes, and the lease's
 * object only stores the result and calls the provider (its run loop, runner.ts).
 */
import type { LeaseVolume } from "../volumes/volumes";
import type { Offer } from "../catalog/offer";
import type { Spec } from "../catalog/spec";
import { newBilling } from "../billing/accrual";
import { totalOf, type Reservation } from "../billing/ceiling";
import { microsToUsd } from "../billing/money";
import type { Machine, ProviderError } from "../providers/contract";
import { collectsOutputs, hardCapDeadlines } from "./decide";
import { following, nextOfferOf, reservationFor } from "./rent";
import { attemptsThisRestart, restartsOf } from "./recovery";
import type { ConfigWarning } from "./config-check";
import type { LeaseKind, Policy } from "./policy";
import { hasMachine, NO_JOB_PROGRESS, TERMINAL_STATES, type AgentFacts, type JobProgress, type KillCause, type LeaseRecord, type MachinedLease, type LeaseState, type OutputsWait, type Reason, type ServedModel } from "./state";

/** An event to append beside a write (the object's `events` table). */
export interface Effect {
  event: string;
  reason?: Reason | null;
  detail?: Record<string, unknown>;
}

/** A new record and the event that says why. */
export interface Step {
  next: LeaseRecord;
  effect: Effect;
}

export type UserAction = "end" | "stop" | "start" | "extend" | "lock" | "unlock" | "heartbeat";
export const USER_ACTIONS: readonly UserAction[] = ["end", "stop", "start", "extend", "lock", "unlock", "heartbeat"];

export type ActPlan =
  /** Refused: 409 `invalid_state`, the state and action in its details. */
  | { ok: false; message: string; details: Record<string, unknown> }
  /**
   * Allowed. `reserve`: what must be reserved against the org's caps first (null: what the lease
   * holds covers it); `quiet`: saved without an event (heartbeats are frequent).
   */
  | { ok: true; change: Step | null; reserve: Reservation | null; quiet: boolean };

/** Which states a user action is allowed in (the rest answer 409). */
const ALLOWED: Record<UserAction, (s: LeaseState) => boolean> = {
  end: () => true,
  stop: (s) => s === "ready" || s === "booting",
  start: (s) => s === "stopped",
  extend: (s) => !TERMINAL_STATES.includes(s),
  lock: (s) => s === "ready" || s === "booting",
  unlock: (s) => !TERMINAL_STATES.includes(s),
  heartbeat: (s) => s === "ready" || s === "booting",
};

/** A user's action on `l` at `now`: refused, or the record it makes. `ms`: extend's and lock's duration. */
export function userAction(l: LeaseRecord, action: UserAction, arg: { ms?: number }, now: number): ActPlan {
  const invalid = (why: string, extra: Record<string, unknown> = {}): ActPlan => ({
    ok: false,
    message: `cannot ${action} a lease that is ${l.state}${why ? `: ${why}` : ""}`,
    details: { state: l.state, action, ...extra },
  });
  const ok = (next: LeaseRecord, effect: Effect, reserve: Reservation | null = null): ActPlan => ({
    ok: true,
    change: { next, effect },
    reserve,
    quiet: action === "heartbeat",
  });
  // Ending a lease that is already ending changes nothing: a retried `end` is not an error.
  if (action === "end" && TERMINAL_STATES.includes(l.state)) return { ok: true, change: null, reserve: null, quiet: true };
  if (!ALLOWED[action](l.state)) return invalid("");
  switch (action) {
    case "end":
      // A backoff left by a failed stop or read is not a reason to keep a machine the user ended:
      // the destroy is tried at once (each minute it waits is billed).
      return ok({ ...l, state: "releasing", state_since: now, release_reason: "user_end", retry_at: null }, { event: "release_requested", reason: "user_end" });
    case "stop":
      if (!hasMachine(l)) return invalid("");
      if (!l.can_stop) return invalid("this provider cannot stop a machine; end the lease instead", { capability: "stop" });
      return ok(
        { ...l, state: "stopping", state_since: now, stop_issued_at: null, stop_failing_since: null, lock_until: null },
        { event: "stop_requested", reason: "user_stop" },
      );
    case "start":
      if (!hasMachine(l)) return invalid("");
      return ok({ ...l, state: "starting", state_since: now }, { event: "start_requested", reason: "user_start" }, reservationFor(l, { kind: "start" }, now));
    case "extend": {
      if (l.ttl_deadline === null) return invalid("the lease has no ttl to extend");
      const ttl_deadline = l.ttl_deadline + arg.ms!;
      return ok(
        { ...l, ttl_deadline },
        { event: "extended", detail: { by_ms: arg.ms, ttl_expires_at: new Date(ttl_deadline).toISOString() } },
        reservationFor(l, { kind: "extend", ttl_deadline }, now),
      );
    }
    case "lock": {
      // A lock never outlives the hard caps.
      const lock_until = Math.min(now + arg.ms!, ...hardCapDeadlines(l).map((c) => c.at));
      return ok({ ...l, lock_until }, { event: "locked", detail: { until: new Date(lock_until).toISOString() } });
    }
    case "unlock":
      return ok({ ...l, lock_until: null }, { event: "unlocked" });
    case "heartbeat":
      // Never backwards: the gateway's activity is written a little after it happened (object.ts `#noteActivity`).
      return ok({ ...l, last_activity_at: Math.max(now, l.last_activity_at ?? now) }, { event: "heartbeat" });
  }
}

/**
 * The model server's metrics showed requests (docs/deployments.md "Activity"): the machine's own
 * word, recorded apart from the lease's last activity (users and the gateway), since it counts only
 * within the org's ceiling (decide.ts `machineUseUntil`). null: not booting or ready, nothing to record.
 */
export function machineActive(l: LeaseRecord, now: number): LeaseRecord | null {
  if (l.state !== "ready" && l.state !== "booting") return null;
  return { ...l, machine_activity_at: Math.max(now, l.machine_activity_at ?? now) };
}

/** What `POST /v1/leases` hands the lease's object. */
export interface LeaseInit {
  id: string;
  org_id: string;
  kind: LeaseKind;
  policy: Policy;
  spec: Spec | null;
  quote_id: string | null;
  offers: Offer[];
  image: string | null;
  cmd: string | null;
  /** The command's environment (values are secrets: kept in the object, shown by name only). */
  env?: Record<string, string> | null;
  /** Claimed by admission (src/lease/names.ts). */
  name?: string | null;
  /** A deployment's model and its machine's key (src/deployments/). */
  model?: ServedModel | null;
  /** A deployment's: its org's `machine_activity_max` (src/orgs/settings.ts), ms. */
  machine_activity_max?: number | null;
  warnings: ConfigWarning[];
  /** What admission reserved against the org's caps (src/billing/budget.ts). */
  reserved: Reservation | null;
  /** What admission held under the org's GPU quota (src/lease/quota-repo.ts); absent: its chosen offer's. */
  held_gpus?: number;
  /** The volumes its machines mount (src/volumes/volumes.ts). */
  volumes?: LeaseVolume[];
  now: number;
}

/** A new lease, pending on its first offer. */
export function newLease(init: LeaseInit, canStop: (provider: string) => boolean): Step {
  const offer = init.offers[0]!;
  return {
    next: {
      id: init.id,
      org_id: init.org_id,
      kind: init.kind,
      state: "pending",
      state_since: init.now,
      policy: init.policy,
      spec: init.spec,
      quote_id: init.quote_id,
      offers: init.offers,
      offer_index: 0,
      excluded_hosts: [],
      attempt: 0,
      provider: offer.provider,
      can_stop: canStop(offer.provider),
      machine_account: null,
      machine_id: null,
      label: null,
      machine_status: null,
      observed_at: null,
      hourly_usd: offer.hourly_usd,
      stopped_hourly_usd: 0,
      machine_ids: [],
      billing: newBilling(),
      reserved: init.reserved,
      ...(init.held_gpus === undefined ? {} : { held_gpus: init.held_gpus }),
      ...(init.volumes?.length ? { volumes: init.volumes } : {}),
      reconcile_required: false,
      retry_at: null,
      created_at: init.now,
      session_started_at: null,
      ready_at: null,
      ttl_deadline: init.policy.ttl === null ? null : init.now + init.policy.ttl,
      last_activity_at: null,
      lock_until: null,
      stopped_at: null,
      stop_failing_since: null,
      stop_issued_at: null,
      release_reason: null,
      released_at: null,
      image: init.image,
      cmd: init.cmd,
      env: init.env ?? null,
      job: null,
      name: init.name ?? null,
      model: init.model ?? null,
      ...(init.machine_activity_max ? { machine_activity_max: init.machine_activity_max } : {}),
      warnings: init.warnings,
      version: 0,
    },
    effect: { event: "created", detail: { offer: offer.id, kind: init.kind } },
  };
}

/** A user's action whose cost admission reserved (`reserve`): the lease holds it from now on. */
export function withReserved(change: Step, reserve: Reservation): Step {
  return {
    next: { ...change.next, reserved: reserve },
    effect: { ...change.effect, detail: { ...change.effect.detail, reserved_usd: microsToUsd(totalOf(reserve)) } },
  };
}

/** The lease holds machine `m` (created, or adopted after a listing by label) and boots it. */
export function withMachine(l: LeaseRecord, m: Machine, account: string, now: number): LeaseRecord {
  return {
    ...l,
    machine_account: account,
    state: "booting",
    state_since: now,
    machine_id: m.id,
    label: m.label,
    machine_status: m.status,
    observed_at: now,
    observed_change_at: now,
    start_issued_at: null,
    reconcile_required: false,
    retry_at: null,
    // A replacement host continues the session; a first machine begins it.
    session_started_at: l.session_started_at && l.state !== "provisioning" && l.state !== "pending" ? l.session_started_at : now,
    hourly_usd: m.hourly_usd || l.hourly_usd,
    stopped_hourly_usd: m.stopped_hourly_usd,
  };
}

/**
 * Why a lease is released when it runs out of hosts, the one rule for every path that gets there:
 * `no_capacity` when no host ever gave it a machine (every create was refused for capacity, which
 * does not count as an attempt), else `host_failed`.
 */
export function exhaustedReason(l: LeaseRecord): Reason {
  return attemptsThisRestart(l) === 0 ? "no_capacity" : "host_failed";
}

/** Where `provision` stands before it calls the provider: release (out of hosts) or rent `offer`. */
export function rentable(l: LeaseRecord): { offer: LeaseRecord["offers"][number] } | { release: Reason; detail: Record<string, unknown> } {
  const offer = l.offers[l.offer_index];
  if (!offer || attemptsThisRestart(l) >= l.policy.host_attempts) return { release: exhaustedReason(l), detail: { attempts: attemptsThisRestart(l) } };
  return { offer };
}

/**
 * The host of the current offer failed (`reason`): the lease drops its machine and moves to the
 * next offer on another host, following its provider (and so the org's account there), that
 * provider's capabilities and its price; or, with none left, releases.
 */
export function afterHostFailed(
  l: LeaseRecord,
  failedHost: string,
  reason: Reason,
  canStop: (provider: string) => boolean,
  now: number,
): Step {
  const { index, excluded, offer } = nextOfferOf(l, failedHost);
  const next: LeaseRecord = {
    ...l,
    excluded_hosts: excluded,
    offer_index: index,
    machine_id: null,
    machine_account: null,
    machine_status: null,
    label: null,
    state: "provisioning",
    state_since: now,
    retry_at: null,
  };
  // Out of hosts after a spot machine was taken back: released for that, not for a failed host.
  if (!offer) return beginRelease(next, reason === "preempted" ? "preempted" : exhaustedReason(l), now, { failed_host: failedHost, attempts: l.attempt });
  return {
    next: { ...next, ...following(offer, canStop) },
    effect: { event: "host_excluded", reason, detail: { host: failedHost, provider: l.provider, next_offer: offer.id, next_provider: offer.provider } },
  };
}

/** What a create's failure means (src/providers/contract.ts kinds). */
export type CreateFailure =
  /** Refused for capacity: nothing was created; the next offer on another host. */
  | "next_offer"
  /** Refused for good (no key, no funds, a request the provider will never accept): released. */
  | "refused"
  /** Nothing was created, but it may be tried again after the provider's wait. */
  | "retry"
  /** Outcome unknown (timeout, 5xx, dropped connection): reconciled by label next time. */
  | "ambiguous";

export function createFailure(kind: ProviderError["kind"] | "ambiguous"): CreateFailure {
  if (kind === "no_capacity") return "next_offer";
  if (kind === "rate_limited") return "retry";
  if (kind === "auth" || kind === "insufficient_funds" || kind === "refused") return "refused";
  return "ambiguous";
}

export function beginRelease(l: LeaseRecord, reason: Reason | null, now: number, detail: Record<string, unknown> = {}): Step {
  return {
    next: { ...l, state: "releasing", state_since: now, release_reason: reason, retry_at: null, lock_until: null },
    effect: { event: "release_requested", reason, detail },
  };
}

/**
 * A deployment displaced the lease under its org's full GPU quota (src/lease/quota.ts): it is
 * released, and its `release_requested` says by which lease. null: it is already ending.
 */
export function preemption(l: LeaseRecord, by: string, now: number): Step | null {
  return TERMINAL_STATES.includes(l.state) ? null : beginRelease(l, "preempted", now, { by });
}

/** The `release` action's first step: null when the lease is already releasing. */
export function releaseStarted(l: LeaseRecord, reason: Reason | null, now: number, detail: Record<string, unknown> = {}): Step | null {
  return l.state === "releasing" ? null : beginRelease(l, reason, now, detail);
}

/**
 * A release decided whether it waits for the outputs (decide.ts `collectsOutputs`): `wait`, the
 * `collect` queued for the agent and the bound (event `outputs_requested`), or null, at once.
 */
export function outputsRequested(l: LeaseRecord, wait: OutputsWait | null): { next: LeaseRecord; effect: Effect | null } {
  if (wait === null) return { next: { ...l, outputs_wait: null }, effect: null };
  return {
    next: { ...l, outputs_wait: wait },
    effect: { event: "outputs_requested", detail: { command_id: wait.command_id, until: new Date(wait.until).toISOString() } },
  };
}

/**
 * A release that will not wait for the outputs (decide.ts `collectsOutputs` says no), as its first
 * write stores it: `outputs_wait: null` in the same write, not in one of its own at the release's
 * first run (docs/cost.md). One that may wait is left undecided: its first run queues the `collect`
 * and decides (runner.ts `#release`, `outputsRequested`).
 */
export function releaseDecided(l: LeaseRecord, agent: AgentFacts, now: number): LeaseRecord {
  if (l.state !== "releasing" || l.outputs_wait !== undefined || collectsOutputs(l, agent, now)) return l;
  return outputsRequested(l, null).next;
}

/** Ready: the command starts now, and its rules begin afresh (docs/design.md "The command"). */
export function markReady(l: MachinedLease, now: number): Step {
  // A job back after a loss (recovery.ts): the event says which restart, and how long from the loss to this machine running.
  const lost = l.lost_at ?? null;
  const resumed = lost === null ? {} : { detail: { restart: restartsOf(l), loss_to_running_ms: Math.max(0, now - lost) } };
  return { next: { ...l, state: "ready", state_since: now, ready_at: now, last_activity_at: now, job: null, ...(lost === null ? {} : { lost_at: null }) }, effect: { event: "ready", ...resumed } };
}

// ---- the command (decide.ts `commandRules`) ---------------------------------------------------

const progress = (l: LeaseRecord): JobProgress => l.job ?? NO_JOB_PROGRESS;

/** The agent reported the command's exit: the lease shows it, and on_exit falls due. */
export function markExited(l: LeaseRecord, exit: NonNullable<JobProgress["exit"]>): Step {
  return {
    next: { ...l, job: { ...progress(l), exit } },
    effect: {
      event: "exited",
      // A job that recovers says which attempt this exit is: the lease's exit is its last attempt's.
      detail: {
        code: exit.code,
        signal: exit.signal,
        at: new Date(exit.at).toISOString(),
        // As `attempt_ended` says of each attempt that lost its machine: which attempt, and its machine's time until the exit.
        ...(l.policy.recovery ? { attempt: restartsOf(l) + 1, machine_ms: Math.max(0, exit.at - (l.session_started_at ?? exit.at)) } : {}),
      },
    },
  };
}

/** The event of a TERM or KILL lessor queued for its own rule. */
export const KILL_EVENTS: Record<KillCause, string> = { max_runtime: "killed_by_runtime_cap", inactivity: "killed_by_inactivity" };

/** A TERM (the kill begins) or the KILL after kill_grace was queued for the command, for `cause`. */
export function signalQueued(l: LeaseRecord, signal: "TERM" | "KILL", cause: KillCause, commandId: string, now: number): Step {
  const job = progress(l);
  const next = signal === "TERM" ? { ...job, kill_cause: cause, term_at: now } : { ...job, kill_cause: cause, kill_at: now };
  return { next: { ...l, job: next }, effect: { event: KILL_EVENTS[cause], reason: cause, detail: { signal, command_id: commandId } } };
}

/** The output has been silent since `since` (one `stalled` per stall); the diagnostics command was queued, or not (null). */
export function stalled(l: LeaseRecord, since: number, diagnosticsId: string | null, now: number): Step {
  return {
    next: { ...l, job: { ...progress(l), stalled_since: since, diagnostics_id: diagnosticsId } },
    effect: { event: "stalled", reason: "inactivity", detail: { silent_since: new Date(since).toISOString(), silent_ms: now - since, diagnostics_id: diagnosticsId } },
  };
}

/** The agent's heartbeats stopped after `lastBeat` (once per silence). */
export function agentSilent(l: LeaseRecord, lastBeat: number): Step {
  return {
    next: { ...l, job: { ...progress(l), silent_after: lastBeat } },
    effect: { event: "agent_silent", detail: { last_heartbeat_at: new Date(lastBeat).toISOString() } },
  };
}

export function markStopped(l: MachinedLease, reason: Reason | null, now: number): Step {
  return {
    next: { ...l, state: "stopped", state_since: now, stopped_at: l.stopped_at ?? now, stop_failing_since: null, lock_until: null, start_issued_at: null },
    effect: { event: "stopped", reason },
  };
}

/**
 * An automatic stop of a ready or stopped lease, recorded before anything is called (guarantee 3).
 * A stopped lease's machine seen running again (`unexpected_start`) bills at its full rate from
 * here until it is seen stopped, and its stopped_ttl counts again from then (docs/design.md
 * "Sessions"). null: the lease is already stopping.
 */
export function stopRequested(l: MachinedLease, reason: Reason | null, now: number): Step | null {
  if (l.state !== "ready" && l.state !== "stopped") return null;
  const restarted = l.state === "stopped" ? { stopped_at: null } : {};
  return {
    next: { ...l, ...restarted, state: "stopping", state_since: now, stop_issued_at: null, stop_failing_since: null },
    effect: { event: "stop_requested", reason, detail: l.state === "stopped" ? { machine_id: l.machine_id, machine_status: l.machine_status } : {} },
  };
}

/** The provider accepted a stop; whether it was carried out is read back (decide.ts `STOP_REISSUE_MS`). */
export function stopIssued(l: MachinedLease, now: number): Step {
  return { next: { ...l, stop_issued_at: now, stop_failing_since: null, retry_at: null }, effect: { event: "stop_issued" } };
}

/** A stop call failed: stops failing long enough escalate to a release (decide.ts `STOP_ESCALATE_MS`). */
export function stopFailed(l: MachinedLease, now: number): LeaseRecord {
  return { ...l, stop_failing_since: l.stop_failing_since ?? now };
}

/**
 * Every machine of the lease is confirmed destroyed (`destroyed`: those this release destroyed),
 * at `at`, when the accrual ends. Machines found by label bill the lease too: they are attributed to it.
 */
export function released(l: LeaseRecord, destroyed: readonly string[], at: number): Step {
  return {
    next: {
      ...l,
      state: "released",
      state_since: at,
      released_at: at,
      machine_status: l.machine_id ? "terminated" : null,
      retry_at: null,
      lock_until: null,
      machine_ids: [...l.machine_ids, ...destroyed.filter((id) => !l.machine_ids.includes(id))],
    },
    effect: { event: "released", reason: l.release_reason, detail: { destroyed: [...destroyed] } },
  };
}

/** The provider accepted a start: a new session, from which max_lifetime, budget and boot graces count. */
export function started(l: MachinedLease, now: number): Step {
  return {
    next: { ...l, state: "booting", state_since: now, session_started_at: now, stopped_at: null, retry_at: null, start_issued_at: now },
    effect: { event: "starting" },
  };
}

/**
 * A read-back of the machine. Every read is recorded: the next one is scheduled from it
 * (decide.ts `pollAt`), and a change of status restarts that schedule.
 */
export function observed(l: LeaseRecord, status: Machine["status"], now: number): LeaseRecord {
  const changed = status !== l.machine_status;
  return { ...l, machine_status: status, observed_at: now, observed_change_at: changed ? now : (l.observed_change_at ?? null), retry_at: null };
}

/**
 * Whether a read-back (`observed`) changed more than when the machine was last read: its status,
 * or a backoff it ends. One that did not is not written: the object holds its time in memory
 * (LeaseStore `holdObserved`), where the poll schedule reads it; an object that starts again
 * without it reads the machine back sooner, once (docs/cost.md).
 */
export function observationChanged(before: LeaseRecord, after: LeaseRecord): boolean {
  return after.machine_status !== before.machine_status || after.observed_change_at !== before.observed_change_at || after.retry_at !== before.retry_at;
}
