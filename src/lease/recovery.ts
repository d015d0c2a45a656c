/**
 * A job that survives losing its machine (issue 31, docs/leases.md "Recovery"): which losses it
 * recovers from, which offer it rents next, and what its record becomes between machines. Pure
 * (STYLE.md rule 1): decide.ts asks `recovers` what a loss does, the runner destroys the old
 * machine, confirms it gone, and only then stores `restartScheduled` (guarantee 1: never two
 * machines), and provision rents the next one as it rents any.
 */
import type { Offer } from "../catalog/offer";
import { following } from "./rent";
import { RECOVERABLE, type Recoverable } from "./policy";
import type { LeaseRecord, MachinedLease, Observation, Reason } from "./state";
import type { Step } from "./transitions";

export function isRecoverable(reason: Reason | null): reason is Recoverable {
  return reason !== null && (RECOVERABLE as readonly string[]).includes(reason);
}

/**
 * The loss a lease holding a machine has suffered, by what was read of it, or null: the provider
 * no longer has it (`provider_lost`, believed only after two reads, provision.ts
 * `observationOf`), took it back (`preempted`: a spot machine interrupted, contract.ts
 * `Machine.preempted`), or reports it failed (`host_failed`).
 */
export function lossOf(obs: Pick<Observation, "machine">): Recoverable | null {
  const m = obs.machine;
  if (m === null) return "provider_lost";
  if (m === undefined) return null;
  if (m.preempted) return "preempted";
  if (m.status === "error") return "host_failed";
  return null;
}

/** Restarts the job has made so far. */
export function restartsOf(l: Pick<LeaseRecord, "restarts">): number {
  return l.restarts ?? 0;
}

/**
 * Whether a loss for `reason` restarts the job on a new machine: its policy recovers from that
 * loss and has a restart left. Otherwise the lease is released with the reason, as a lease
 * without recovery is (and so one that used its last restart is released with its last loss).
 */
export function recovers(l: Pick<LeaseRecord, "kind" | "policy" | "restarts" | "cmd">, reason: Reason | null): boolean {
  const r = l.policy.recovery;
  if (!r || l.kind !== "job" || l.cmd === null || !isRecoverable(reason)) return false;
  return r.on.includes(reason) && restartsOf(l) < r.max_restarts;
}

/**
 * The offers a restart tries, in order: those after the lost one, then the lost one itself last
 * (a spot host that took its machine back may have room again), spot before on-demand for a
 * spot lease (`fallback_on_demand` put on-demand offers after its spot ones at create), without
 * hosts excluded for this lease: a host that failed (`host_failed`) or lost the machine
 * (`provider_lost`) is excluded from now on, one that took it back is not. null: none is left.
 */
export function restartOffers(l: LeaseRecord, reason: Recoverable): { offers: Offer[]; excluded_hosts: string[] } | null {
  const lost = l.offers[l.offer_index];
  const excluded = lost && reason !== "preempted" && !l.excluded_hosts.includes(lost.host_id) ? [...l.excluded_hosts, lost.host_id] : l.excluded_hosts;
  const i = Math.min(l.offer_index, l.offers.length - 1);
  const rotated = [...l.offers.slice(i + 1), ...l.offers.slice(0, i + 1)];
  // A stable sort: spot first keeps each part's order.
  const ordered = l.spec?.spot ? [...rotated].sort((a, b) => Number(b.spot) - Number(a.spot)) : rotated;
  const offers = ordered.filter((o) => !excluded.includes(o.host_id));
  return offers.length === 0 ? null : { offers, excluded_hosts: excluded };
}

/** How long the lost machine ran for the lease: from its create (its session's start) until the loss was acted on. */
export function machineMsOf(l: Pick<LeaseRecord, "session_started_at" | "state_since">, now: number): number {
  return Math.max(0, now - (l.session_started_at ?? l.state_since));
}

/**
 * The lost machine is destroyed or proven gone: the job waits `backoff`, then rents the first of
 * `restartOffers` as a new attempt (`LESSOR_RESTART` one more), keeping its id, log and events.
 * The event `attempt_ended` records the attempt that ended: its loss, its machine and the
 * machine's time. Its accrual ends here (provisioning bills nothing); its machine stays among
 * `machine_ids`, so its receipt counts every machine.
 */
export function restartScheduled(
  l: MachinedLease | LeaseRecord,
  reason: Recoverable,
  canStop: (provider: string) => boolean,
  now: number,
): Step | null {
  const next = restartOffers(l, reason);
  const r = l.policy.recovery;
  if (!next || !r) return null;
  const offer = next.offers[0]!;
  const restart = restartsOf(l) + 1;
  const retryAt = now + r.backoff;
  return {
    next: {
      ...l,
      ...following(offer, canStop),
      state: "provisioning",
      state_since: now,
      offers: next.offers,
      offer_index: 0,
      excluded_hosts: next.excluded_hosts,
      machine_id: null,
      machine_account: null,
      machine_status: null,
      label: null,
      start_issued_at: null,
      reconcile_required: false,
      retry_at: retryAt,
      attempt_base: l.attempt,
      restarts: restart,
      lost_at: l.lost_at ?? now,
      ready_at: null,
      lock_until: null,
      job: null,
    },
    effect: {
      event: "attempt_ended",
      reason,
      detail: {
        attempt: restart,
        machine_id: l.machine_id,
        provider: l.provider,
        host: l.offers[l.offer_index]?.host_id ?? null,
        machine_ms: machineMsOf(l, now),
        restart,
        next_offer: offer.id,
        next_provider: offer.provider,
        next_at: new Date(retryAt).toISOString(),
      },
    },
  };
}

/** The environment an attempt's machine is given beyond the lease's own: `LESSOR_RESTART`, the restarts before it (0 on the first), for a job that recovers. */
export function restartEnv(l: Pick<LeaseRecord, "policy" | "restarts">): Record<string, string> {
  return l.policy.recovery ? { LESSOR_RESTART: String(restartsOf(l)) } : {};
}

/** The host attempts used by the current attempt of the job (each restart may try `host_attempts` of its own). */
export function attemptsThisRestart(l: Pick<LeaseRecord, "attempt" | "attempt_base">): number {
  return l.attempt - (l.attempt_base ?? 0);
}
