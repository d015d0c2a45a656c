/**
 * The scaler (issue 32, docs/deployments.md "Replicas"): what a deployment's replicas should do
 * now, decided from what is observed (requests in flight per replica, requests waiting for one,
 * each replica's readiness and failures) and nothing else. No I/O and no clock: `now` is passed
 * in (STYLE.md rule 1). The deployment's object (object.ts) acts on the answer and records every
 * action it takes with the reason given here.
 */
import type { Replicas } from "./replicas";

/** A replica as the object sees it: its lease's readiness, and what the object counts of it. */
export type ReplicaState = "starting" | "ready" | "stopped" | "gone";

export interface ReplicaObs {
  lease_id: string;
  /** The deployment's own lease (its row's `lease_id`): made by the PUT, asleep rather than gone at zero. */
  primary: boolean;
  state: ReplicaState;
  /** Being taken away: sent no new request, released once its in-flight requests end. */
  draining_since: number | null;
  in_flight: number;
  /** 5xx answers or failed sends in a row (a good answer resets it). */
  failures: number;
}

export interface ScalerInput {
  replicas: ReplicaObs[];
  /** Requests held in the gateway for want of a ready replica. */
  queued: number;
  /** When the last request began or ended through the gateway; null: none since the object began. */
  last_request_at: number | null;
  /** Since when fewer replicas have been enough (the previous decision's `below_since`). */
  below_since: number | null;
  /** A replica the budget or quota refused: none is asked for again before this. */
  refused_until: number | null;
  /** The primary was put to sleep by the scaler with `sleep: release`: a request makes it anew. */
  primary_asleep: boolean;
  now: number;
}

/** A replica answering 5xx or failing this many times in a row is replaced. */
export const FAILURE_LIMIT = 5;
/** After a refused replica (402/409), the scaler asks again no sooner than this. */
export const REFUSED_BACKOFF_MS = 30_000;

export type ScaleReason =
  | "load_above_target"
  | "load_below_target"
  | "idle_timeout"
  | "request_waiting"
  | "drained"
  | "drain_timeout"
  | "replica_failing"
  | "replica_stopped"
  | "replica_lost"
  | "deployment_ended";

export type ScaleAction =
  | { do: "add"; count: number; reason: ScaleReason; detail: string }
  | { do: "drain"; lease_id: string; reason: ScaleReason; detail: string }
  | { do: "release"; lease_id: string; reason: ScaleReason; detail: string }
  | { do: "forget"; lease_id: string; reason: ScaleReason; detail: string }
  | { do: "wake"; lease_id: string; reason: ScaleReason; detail: string }
  | { do: "sleep"; lease_id: string; mode: "stop" | "release"; reason: ScaleReason; detail: string }
  | { do: "replace"; lease_id: string; reason: ScaleReason; detail: string };

/** What the scaler will do next and why: its next action, or "none" with why not. */
export interface ScalerNext {
  action: "add" | "drain" | "release" | "wake" | "sleep" | "replace" | "forget" | "none";
  reason: string;
  /** When, if later than now; null: now (or nothing pending). */
  at: number | null;
}

export interface ScaleDecision {
  actions: ScaleAction[];
  /** The replicas the load asks for (0: asleep). */
  desired: number;
  below_since: number | null;
  next: ScalerNext;
  /** When to decide again on time alone (a delay, a drain bound, the idle timeout); null: only on news. */
  check_at: number | null;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** What the deployment's replicas should do now. */
export function decideScale(cfg: Replicas, input: ScalerInput): ScaleDecision {
  const { now } = input;
  const actions: ScaleAction[] = [];
  const pending: ScalerNext[] = [];
  const checks: number[] = [];
  const primary = input.replicas.find((r) => r.primary) ?? null;

  // Replicas whose leases ended or stopped on their own are let go, and draining ones released once done.
  const kept: ReplicaObs[] = [];
  for (const r of input.replicas) {
    if (r.primary) {
      kept.push(r);
      continue;
    }
    if (r.state === "gone") actions.push({ do: "forget", lease_id: r.lease_id, reason: "replica_lost", detail: "its lease ended by its own rules" });
    else if (r.draining_since !== null) {
      if (r.in_flight === 0) actions.push({ do: "release", lease_id: r.lease_id, reason: "drained", detail: "no request in flight" });
      else if (now - r.draining_since >= cfg.drain_timeout_ms) actions.push({ do: "release", lease_id: r.lease_id, reason: "drain_timeout", detail: `${plural(r.in_flight, "request")} still in flight after the drain bound` });
      else {
        checks.push(r.draining_since + cfg.drain_timeout_ms);
        pending.push({ action: "release", reason: `draining: ${plural(r.in_flight, "request")} in flight`, at: r.draining_since + cfg.drain_timeout_ms });
      }
    } else if (r.state === "stopped") actions.push({ do: "release", lease_id: r.lease_id, reason: "replica_stopped", detail: "its lease stopped by its own rules" });
    else if (r.failures >= FAILURE_LIMIT) actions.push({ do: "release", lease_id: r.lease_id, reason: "replica_failing", detail: `${r.failures} failures in a row; a new replica takes its place` });
    else kept.push(r);
  }

  // A primary that ended by its own rules (a user's end, a hard cap) ends the deployment's serving.
  if (primary && primary.state === "gone" && !input.primary_asleep) {
    for (const r of kept) if (!r.primary && r.draining_since === null) actions.push({ do: "drain", lease_id: r.lease_id, reason: "deployment_ended", detail: "the deployment's own lease ended" });
    return { actions, desired: 0, below_since: null, next: { action: "none", reason: "the deployment's lease ended: PUT it again to serve it", at: null }, check_at: null };
  }

  let primaryFailing = false;
  if (primary && primary.draining_since === null && primary.state !== "gone" && primary.state !== "stopped" && primary.failures >= FAILURE_LIMIT) {
    actions.push({ do: "replace", lease_id: primary.lease_id, reason: "replica_failing", detail: `${primary.failures} failures in a row; its lease is ended and a new one made` });
    primaryFailing = true;
  }

  const serving = kept.filter((r) => r.draining_since === null && (r.state === "starting" || r.state === "ready") && !(r.primary && primaryFailing));
  const inFlight = serving.reduce((n, r) => n + r.in_flight, 0);
  const load = inFlight + input.queued;
  const quietFor = input.last_request_at === null ? Infinity : now - input.last_request_at;
  const idle = load === 0 && quietFor >= cfg.idle_timeout_ms;

  let desired: number;
  let why: string;
  if (load > 0) {
    desired = Math.min(cfg.max, Math.max(cfg.min, 1, Math.ceil(load / cfg.target_inflight)));
    why = `${plural(inFlight, "request")} in flight and ${input.queued} waiting, ${cfg.target_inflight} per replica`;
  } else if (serving.length === 0) {
    desired = 0;
    why = "no replica and no request: a request wakes one";
  } else if (idle) {
    desired = cfg.min;
    why = `no request for ${Math.round(quietFor / 1000)} s (idle_timeout ${cfg.idle_timeout_ms / 1000} s)`;
  } else {
    desired = Math.max(cfg.min, 1);
    why = "no request in flight";
    if (cfg.min === 0 || serving.length > desired) {
      const at = input.last_request_at! + cfg.idle_timeout_ms;
      checks.push(at);
      if (cfg.min === 0 && serving.length <= 1) pending.push({ action: "sleep", reason: `idle_timeout: no request by then`, at });
    }
  }

  // Up: wake the primary first, then add replicas for what is still missing.
  let live = serving.length;
  if (desired > 0 && primary && !serving.some((r) => r.primary) && !primaryFailing && primary.draining_since === null && (primary.state === "stopped" || (primary.state === "gone" && input.primary_asleep))) {
    actions.push({ do: "wake", lease_id: primary.lease_id, reason: "request_waiting", detail: why });
    live++;
  }
  let below_since: number | null = null;
  if (desired > live) {
    const count = desired - live;
    if (input.refused_until !== null && now < input.refused_until) {
      checks.push(input.refused_until);
      pending.push({ action: "add", reason: `${plural(count, "replica")} wanted (${why}); the last one was refused by the budget or quota`, at: input.refused_until });
    } else actions.push({ do: "add", count, reason: "load_above_target", detail: why });
  } else if (desired < live) {
    below_since = input.below_since ?? now;
    const reason: ScaleReason = desired === cfg.min && idle ? "idle_timeout" : "load_below_target";
    if (now - below_since >= cfg.scale_down_delay_ms || (desired === 0 && idle)) {
      // Extras go first (starting before ready, the least busy first); the primary only at zero.
      const order = [...serving].sort((a, b) => Number(a.primary) - Number(b.primary) || Number(a.state === "ready") - Number(b.state === "ready") || a.in_flight - b.in_flight);
      for (const r of order.slice(0, live - desired)) {
        if (r.primary) actions.push({ do: "sleep", lease_id: r.lease_id, mode: cfg.sleep, reason, detail: why });
        else actions.push({ do: "drain", lease_id: r.lease_id, reason, detail: why });
      }
      below_since = null;
    } else {
      checks.push(below_since + cfg.scale_down_delay_ms);
      pending.push({ action: "drain", reason: `${plural(live - desired, "replica")} more than needed (${why}); taken away after scale_down_delay`, at: below_since + cfg.scale_down_delay_ms });
    }
  }

  const next: ScalerNext = actions[0]
    ? { action: actions[0].do, reason: `${actions[0].reason}: ${actions[0].detail}`, at: null }
    : pending.sort((a, b) => (a.at ?? 0) - (b.at ?? 0))[0] ?? { action: "none", reason: `${plural(desired, "replica")} wanted, ${live} serving (${why})`, at: null };
  return { actions, desired, below_since, next, check_at: checks.length ? Math.min(...checks) : null };
}
