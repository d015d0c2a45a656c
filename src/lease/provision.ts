/**
 * What renting, replacing and giving back a machine decides (docs/design.md "Where each rule
 * lives"): which machine found by label is kept and which are destroyed, which offer is rented
 * next or why the lease is released instead, what a create's failure means for the record, and
 * whether the key in use may be believed about a machine. Pure (STYLE.md rule 1): the object
 * lists, creates and destroys, and stores the steps these return.
 */
import type { Offer } from "../catalog/offer";
import type { Reservation } from "../billing/ceiling";
import { totalOf } from "../billing/ceiling";
import { microsToUsd } from "../billing/money";
import type { Machine } from "../providers/contract";
import { latestAttempt, machineLabel } from "./label";
import { placementOf } from "./placement";
import { gpusToHold } from "./quota";
import { reservationFor } from "./rent";
import type { Failure } from "./retry";
import type { LeaseRecord, Observation, Reason } from "./state";
import { afterHostFailed, beginRelease, createFailure, rentable, withMachine, type Effect, type Step } from "./transitions";

/** A machine the provider still holds (a terminated one bills nothing and is never acted on). */
export function isAlive(m: Machine | null | undefined): m is Machine {
  return !!m && m.status !== "terminated";
}

/** The machines of a listing that are still alive, less those already `handled`. */
export function aliveOf(machines: readonly Machine[], handled: ReadonlySet<string> = new Set()): Machine[] {
  return machines.filter((m) => isAlive(m) && !handled.has(m.id));
}

/**
 * The lease's machines found alive by label at provision: the one it labelled last is kept (its
 * current label, else the latest attempt), every other one is destroyed, and all of them bill
 * the lease. null: none found, so a machine is rented.
 */
export function adoption(
  l: LeaseRecord,
  alive: readonly Machine[],
  installation: string,
  account: string,
  now: number,
): { destroy: string[]; step: Step } | null {
  if (alive.length === 0) return null;
  const keep = alive.find((m) => m.label === l.label) ?? latestAttempt(installation, alive)!;
  const found = alive.map((m) => m.id).filter((id) => !l.machine_ids.includes(id));
  return {
    destroy: alive.filter((m) => m.id !== keep.id).map((m) => m.id),
    step: {
      next: { ...withMachine(l, keep, account, now), machine_ids: [...l.machine_ids, ...found] },
      effect: { event: "machine_adopted", detail: { machine_id: keep.id, label: keep.label, extra_destroyed: alive.length - 1 } },
    },
  };
}

/**
 * What provision does when no machine was found: release (out of offers or attempts), or rent
 * `offer` after reserving `reserve` against the org's caps (null: what the lease holds covers it)
 * and holding `gpus` under its GPU quota (null: what it holds covers it; a fallback host may have
 * more GPUs than the offer it was admitted with, src/lease/quota.ts).
 */
export type RentPlan = { release: Step } | { offer: Offer; reserve: Reservation | null; gpus: number | null };

export function rentPlan(l: LeaseRecord, now: number): RentPlan {
  const rent = rentable(l);
  if ("release" in rent) return { release: beginRelease(l, rent.release, now, rent.detail) };
  return { offer: rent.offer, reserve: reservationFor(l, { kind: "rent", offer: rent.offer }, now), gpus: gpusToHold(l, rent.offer.gpu_count) };
}

/** The org's caps refused what renting `offer` needs: the lease is released (docs/design.md "Lifecycle rules": money is admitted before it is spent). */
export function budgetRefused(l: LeaseRecord, offer: Offer, details: Record<string, unknown>, now: number): Step {
  // A job's restart after a loss that no longer fits its org's caps ends `over_budget` (docs/leases.md "Recovery"): it never runs past a cap.
  const reason = (l.restarts ?? 0) > 0 && l.lost_at != null ? "over_budget" : "budget_exceeded";
  return beginRelease(l, reason, now, { offer: offer.id, provider: offer.provider, hourly_usd: offer.hourly_usd, ...details });
}

/**
 * The org's GPU quota refused the fallback host `offer`'s GPUs (`refused`, as quotaVerdict says
 * it): the lease is released `quota_exceeded`, nothing rented, as a budget refusal is.
 */
export function quotaRefused(l: LeaseRecord, offer: Offer, refused: { cap: string; limit: number; held: number; requested: number }, now: number): Step {
  return beginRelease(l, "quota_exceeded", now, { offer: offer.id, provider: offer.provider, quota: refused.cap, limit: refused.limit, held: refused.held, requested: refused.requested });
}

/** The GPUs are held: the lease holds `gpus` under its org's quota from now on. */
export function gpusHeld(l: LeaseRecord, gpus: number): LeaseRecord {
  return { ...l, held_gpus: gpus };
}

/**
 * The machine rents above what the lease holds (rent.ts `rentedAboveReserved`): what re-reserving
 * at its price makes of the lease, or, refused by the org's caps (`refused`: the 402's details),
 * its release (`budget_exceeded`), the machine destroyed before it goes on.
 */
export function rentedReserve(l: LeaseRecord, need: Reservation, refused: Record<string, unknown> | null, now: number): Step {
  const offer = l.offers[l.offer_index];
  const what = { offer: offer?.id ?? "", provider: l.provider, hourly_usd: l.hourly_usd };
  if (refused) return beginRelease(l, "budget_exceeded", now, { ...what, ...refused });
  return { next: { ...l, reserved: need }, effect: { event: "budget_reserved", detail: { ...what, reserved_usd: microsToUsd(totalOf(need)) } } };
}

/**
 * The record written before the create (write ahead): if the run dies inside it, the next run
 * lists by the new label first. The event says so when the lease enters provisioning, or what was
 * reserved when it was already there; else there is none.
 */
export function writeAhead(l: LeaseRecord, offer: Offer, reserve: Reservation | null, installation: string, now: number): { next: LeaseRecord; effect: Effect | null } {
  const attempt = l.attempt + 1;
  const label = machineLabel(installation, l.id, attempt);
  const reserved = reserve ? { reserved_usd: microsToUsd(totalOf(reserve)) } : {};
  const next: LeaseRecord = {
    ...l,
    state: "provisioning",
    state_since: l.state === "provisioning" ? l.state_since : now,
    attempt,
    label,
    reconcile_required: true,
    reserved: reserve ?? l.reserved ?? null,
  };
  if (l.state !== "provisioning") return { next, effect: { event: "provisioning", detail: { offer: offer.id, provider: offer.provider, label, ...reserved } } };
  if (reserve) return { next, effect: { event: "budget_reserved", detail: { offer: offer.id, provider: offer.provider, ...reserved } } };
  return { next, effect: null };
}

/** The provider created `m` for `offer`: the lease boots it (the host is the one actually rented, placement.ts). */
export function created(before: LeaseRecord, m: Machine, offer: Offer, provider: string, account: string, now: number): Step {
  return {
    next: withMachine(before, m, account, now),
    effect: { event: "machine_created", detail: { machine_id: m.id, label: before.label, host: m.host_id || offer.host_id, region: m.region, provider } },
  };
}

/**
 * What a failed create makes of the written-ahead record `before`. Refused outright, nothing was
 * created and the attempt does not count: for capacity the next offer, for good a release. A
 * rate limit is tried again; an unknown outcome is kept for the next run's listing by label.
 * `rethrow`: the step failed, and backs off.
 */
export function createFailed(
  before: LeaseRecord,
  offer: Offer,
  f: Failure,
  canStop: (provider: string) => boolean,
  now: number,
): { next: LeaseRecord; effect: Effect | null; rethrow: boolean } {
  const unmade: LeaseRecord = { ...before, reconcile_required: false, attempt: before.attempt - 1 };
  switch (createFailure(f.kind)) {
    case "next_offer":
      return { ...afterHostFailed(unmade, offer.host_id, "no_capacity", canStop, now), rethrow: false };
    case "refused":
      return { ...beginRelease(unmade, "provider_refused", now, f.kind === "refused" ? { error: f.kind, message: f.text } : { error: f.kind }), rethrow: false };
    case "retry":
      return { next: unmade, effect: null, rethrow: true };
    case "ambiguous":
      return { next: { ...before }, effect: { event: "create_ambiguous", detail: { label: before.label, error: f.message } }, rethrow: true };
  }
}

/** Where a new machine landed, against the lease's regions: null when allowed, else why it is replaced. */
export function misplacement(l: LeaseRecord, landed: Pick<Machine, "region">): Record<string, unknown> | null {
  const placed = placementOf(l.spec?.regions, landed);
  return placed.ok ? null : { misplaced_in: placed.region, allowed: placed.allowed };
}

/** Whether replacing the host must destroy a machine first: one is named and was not seen gone. */
export function destroyFirst(l: LeaseRecord, obs: Observation): boolean {
  return l.machine_id !== null && obs.machine !== null;
}

/**
 * The host failed (`reason`) and its machine is destroyed: the event that records it, and then,
 * applied to the record as stored with it, the move to the next offer (or a release).
 */
export function hostReplaced(
  l: LeaseRecord,
  reason: Reason,
  why: Record<string, unknown>,
  canStop: (provider: string) => boolean,
  now: number,
): { destroyed: Effect; then: (stored: LeaseRecord) => Step } {
  const host = l.offers[l.offer_index]?.host_id ?? "";
  return {
    destroyed: { event: "machine_destroyed", reason, detail: { machine_id: l.machine_id, host, ...why } },
    then: (stored) => afterHostFailed(stored, host, reason, canStop, now),
  };
}

/** Whether `account` is the one that created the lease's machine (a lease stored before it was kept: yes). */
export function isSameAccount(l: LeaseRecord, account: string): boolean {
  return l.machine_account === undefined || l.machine_account === null || l.machine_account === account;
}

/**
 * Why the key in use may not be believed about the lease's machine, or null when it may. A key
 * of another account cannot see the machine, so its absence proves nothing (docs/design.md
 * "Where each rule lives"): the machine is kept until that account can be asked.
 */
export function accountMismatch(l: LeaseRecord, account: string): string | null {
  if (isSameAccount(l, account)) return null;
  return `machine ${l.machine_id} was created with another ${l.provider} key of this org, and the key stored now cannot see it; it is kept until that account can be asked: store that key again`;
}

/**
 * What a read-back tells the policy. A machine that is gone is believed only when the account that
 * created it said so twice (`getMachine` is asked again first): one 404 may be a provider's hiccup.
 */
export function observationOf(m: Machine | null): Observation {
  const machine = isAlive(m) ? m : null;
  return { machine, app_ready: machine?.status === "running" };
}
