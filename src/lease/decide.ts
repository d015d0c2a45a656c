/**
 * The one place that decides what a lease should do now (docs/design.md "Shape"; STYLE.md rule 1).
 * Pure: no I/O, no clock. The alarm, the cron backstop and `GET /v1/leases/:id` all call it;
 * nothing else decides to stop or destroy.
 */
import { sessionBudgetDeadline } from "../billing/accrual";
import { usdToMicros } from "../billing/money";
import { hasMachine, inSession, type LeaseRecord, type Observation, type Reason } from "./state";

export type Action =
  | "none" // nothing to do, ever (released)
  | "wait" // nothing to do until `at`
  | "provision" // create (or adopt, after listing by label) a machine
  | "poll" // read the machine back from the provider
  | "mark_ready"
  | "mark_stopped"
  | "stop"
  | "start"
  | "replace_host" // destroy this machine, exclude its host, rent the next fallback
  | "release"; // destroy every machine of the lease, then released

export interface Decision {
  action: Action;
  reason: Reason | null;
  /** When the action is due; at or before `now` means now. null: never. */
  at: number | null;
  /** With `wait`: the action that falls due at `at`. */
  next?: Exclude<Action, "wait">;
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

interface Candidate {
  action: Exclude<Action, "wait">;
  reason: Reason | null;
  at: number;
}

/** Hard caps (ttl, max_lifetime, max_session_usd): they apply whatever else is true (guarantee 4). */
export function hardCapDeadlines(l: LeaseRecord): Candidate[] {
  const out: Candidate[] = [];
  if (l.ttl_deadline !== null) out.push({ action: "release", reason: "ttl_expired", at: l.ttl_deadline });
  if (l.session_started_at !== null && inSession(l.state)) {
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


/** When a ready lease stops being in use: its last activity plus grace, or its lock's end. */
export function inUseUntil(l: LeaseRecord): number {
  const activity = (l.last_activity_at ?? l.ready_at ?? l.state_since) + l.policy.heartbeat_grace;
  return Math.max(activity, l.lock_until ?? 0);
}

export function decide(l: LeaseRecord, obs: Observation, now: number): Decision {
  if (l.state === "released") return { action: "none", reason: null, at: null };
  if (l.state === "releasing") return { action: "release", reason: l.release_reason, at: now };

  const candidates = hardCapDeadlines(l);
  const due = (c: Candidate) => candidates.push(c);
  const m = obs.machine;
  const retryAt = Math.max(now, l.retry_at ?? now);

  switch (l.state) {
    case "pending":
    case "provisioning":
      due({ action: "provision", reason: null, at: retryAt });
      break;

    case "booting":
      if (m === null) due({ action: "replace_host", reason: "provider_lost", at: now });
      else if (m?.status === "error" && !restarting(l, now)) due({ action: "replace_host", reason: "host_failed", at: now });
      else if (m?.status === "running" && obs.app_ready !== false) due({ action: "mark_ready", reason: null, at: now });
      else {
        if (m?.status === "running" && l.policy.startup_timeout !== null) {
          due({ action: "release", reason: "startup_timeout", at: (l.session_started_at ?? l.state_since) + l.policy.startup_timeout });
        } else {
          due({ action: "replace_host", reason: "boot_timeout", at: l.state_since + l.policy.boot_timeout });
        }
        due({ action: "poll", reason: null, at: Math.max(retryAt, pollAt(l)) });
      }
      break;

    case "ready":
      if (m === null) due({ action: "release", reason: "provider_lost", at: now });
      else if (m?.status === "error") due({ action: "release", reason: "host_failed", at: now });
      else if (m?.status === "stopped") due({ action: "mark_stopped", reason: "provider_stopped", at: now });
      else if (l.policy.idle_timeout !== null) {
        due({ action: l.can_stop ? "stop" : "release", reason: "idle_timeout", at: inUseUntil(l) + l.policy.idle_timeout });
      }
      break;

    case "stopping":
      if (m === null) due({ action: "release", reason: "provider_lost", at: now });
      else if (m?.status === "stopped" || m?.status === "error") due({ action: "mark_stopped", reason: null, at: now });
      else {
        if (l.stop_failing_since !== null) {
          due({ action: "release", reason: "stop_failed", at: l.stop_failing_since + STOP_ESCALATE_MS });
        }
        // A stop that was never issued, failed, or was accepted but not carried out, goes again.
        const again = l.stop_issued_at === null || l.stop_failing_since !== null ? retryAt : l.stop_issued_at + STOP_REISSUE_MS;
        due({ action: "stop", reason: null, at: Math.max(again, retryAt) });
        due({ action: "poll", reason: null, at: Math.max(retryAt, pollAt(l)) });
      }
      break;

    case "stopped":
      if (m === null) due({ action: "release", reason: "provider_lost", at: now });
      // Started behind lessor's back (a provider's console, a provider's bug): it bills at full
      // rate, so it is stopped again at once (docs/design.md "Money 3").
      else if (m && RUNNING.includes(m.status)) due({ action: "stop", reason: "unexpected_start", at: now });
      if (l.policy.stopped_ttl !== null) {
        due({ action: "release", reason: "stopped_ttl", at: (l.stopped_at ?? l.state_since) + l.policy.stopped_ttl });
      }
      break;

    case "starting":
      if (m === null) due({ action: "release", reason: "provider_lost", at: now });
      else due({ action: "start", reason: null, at: retryAt });
      break;
  }

  if (candidates.length === 0) return { action: "wait", reason: null, at: null };
  // The earliest deadline wins; at a tie, a release beats anything else (hard caps first).
  candidates.sort((a, b) => a.at - b.at || rank(a.action) - rank(b.action));
  const first = candidates[0]!;
  if (first.at <= now) return first;
  return { action: "wait", reason: first.reason, at: first.at, next: first.action };
}

/** A machine lessor started again (a stopped session's restart) within the grace: `error` is not yet believed. */
export function restarting(l: LeaseRecord, now: number): boolean {
  const issued = l.start_issued_at ?? null;
  return issued !== null && now - issued < RESTART_ERROR_GRACE_MS;
}

function rank(a: Action): number {
  return a === "release" ? 0 : a === "replace_host" ? 1 : a === "stop" ? 2 : 3;
}

/** The guard as `GET /v1/leases/:id` shows it: what the policy would do, why, and when. */
export function guardOf(l: LeaseRecord, obs: Observation, now: number) {
  const d = decide(l, obs, now);
  const action = d.action === "wait" ? (d.next ?? "none") : d.action;
  return {
    action,
    reason: d.reason,
    at: d.at === null ? null : new Date(d.at).toISOString(),
    due: d.action !== "wait" && d.action !== "none",
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
  const releaseDue = decide(l, { machine: undefined }, now).action === "release" && !waiting;
  if (obs.machine === undefined && hasMachine(l) && !waiting && !releaseDue) return { move: "observe" };
  const d = decide(l, obs, now);
  if (d.action === "wait" || d.action === "none") return { move: "done" };
  if (d.action === "poll") return obs.machine !== undefined || waiting ? { move: "done" } : { move: "observe" };
  return { move: "act", decision: d };
}

/**
 * When the lease's one alarm is set (STYLE.md rule 7): at the nearest deadline `decide` returns,
 * and for an action already due, at once or when its backoff ends. null: no alarm.
 */
export function alarmAt(l: LeaseRecord, now: number): number | null {
  const d = decide(l, { machine: undefined }, now);
  if (d.action !== "wait" && d.action !== "none") return Math.max(now, l.retry_at ?? now);
  return d.at;
}
