/**
 * Pure decisions the lease's object takes before it acts (STYLE.md rule 1: no I/O, no clock):
 * what worst case an action needs reserved (docs/design.md "Money 1"), and which offer it rents next,
 * from which provider, with which capabilities (docs/design.md "Money 2").
 */
import { bandwidthHourlyUsd, reservedHourlyUsd } from "../billing/bandwidth";
import { fitsIn, replacing, retriesMicros, stoppedDiskMicros, worstCase, type Reservation } from "../billing/ceiling";
import { usdToMicros } from "../billing/money";
import type { Offer } from "../catalog/offer";
import { billingIncrementMs } from "../providers/registry";
import { cappedDurationMs, outputsWaitMs, type Policy } from "./policy";
import { inSession, type LeaseRecord } from "./state";

/** An action that can raise a lease's worst-case cost. */
export type CostlyAction =
  /** `extend`: the ttl deadline moves to `ttl_deadline`. */
  | { kind: "extend"; ttl_deadline: number }
  /** `start`: a new session (a fresh max_lifetime) from now. */
  | { kind: "start" }
  /** Renting a machine for `offer` (the first, a fallback or a replacement host): a session from now at its price. */
  | { kind: "rent"; offer: Offer }
  /** The machine rented: its session at the price the provider actually rents it at (`rentedAboveReserved`). */
  | { kind: "rented" };

/**
 * How far above its quoted price an offer may be rented from a quote: a higher live price at create
 * is refused (`quote_drift`, src/catalog/quoted-offers.ts), and anything up to it is reserved
 * (`driftOf`), so that a quote's lease never rents beyond what it holds (docs/design.md "Quotes drift").
 */
export const QUOTE_DRIFT_TOLERANCE = 0.05;

/** The price drift a lease's offers are reserved with: a quote's tolerance for a lease made from one, else none. */
export function driftOf(l: Pick<LeaseRecord, "quote_id">): number {
  return l.quote_id !== null ? QUOTE_DRIFT_TOLERANCE : 0;
}

/** `offer` at the most it may be rented for under `drift`: what a reservation counts it at. */
export function priced<O extends Pick<Offer, "hourly_usd">>(offer: O, drift: number): O {
  return drift === 0 ? offer : { ...offer, hourly_usd: offer.hourly_usd * (1 + drift) };
}

/**
 * The rate of the machine the lease holds, as the provider rents it (`hourly_usd`, from the create's
 * answer), with the bandwidth allowance at its offer's own per-GB prices (src/billing/bandwidth.ts).
 */
export function rentedHourlyUsd(l: LeaseRecord): number {
  return l.hourly_usd + bandwidthHourlyUsd(l.offers[l.offer_index]);
}

/**
 * Whether the machine the lease rented bills above the rate it holds against its org's caps: its
 * provider's price moved since the offer was read, or a quote's drift. Then it must re-reserve
 * before it goes on, or be released (decide.ts, `reserve`). A lease stored before it kept its
 * reservation re-reserves on its next costly action instead.
 */
export function rentedAboveReserved(l: LeaseRecord): boolean {
  return !!l.reserved && usdToMicros(rentedHourlyUsd(l)) > l.reserved.hourly_micro_usd;
}

/** What re-reserving at the rented price writes (null: the reservation held covers it). */
export function rentedReservation(l: LeaseRecord, now: number): Reservation | null {
  return rentedAboveReserved(l) ? reservationFor(l, { kind: "rented" }, now) : null;
}

/**
 * What replacing failed hosts may add to a lease under `policy` renting `offer` (ceiling.ts
 * `retriesMicros`), at its provider's billing increment: the one figure a quote shows, admission
 * reserves and every re-reservation counts again.
 */
export function offerRetriesMicros(
  offer: Pick<Offer, "provider" | "hourly_usd">,
  policy: Pick<Policy, "host_attempts" | "boot_timeout" | "ttl" | "max_lifetime" | "recovery">,
  restartsLeft: number = policy.recovery?.max_restarts ?? 0,
): number {
  return retriesMicros({
    restarts: policy.recovery ? restartsLeft : 0,
    session_ms: policy.max_lifetime,
    host_attempts: policy.host_attempts,
    boot_timeout: policy.boot_timeout,
    basis: cappedDurationMs(policy)?.basis ?? null,
    increment_ms: billingIncrementMs(offer.provider),
    hourly_usd: offer.hourly_usd,
  });
}

/** The lease's worst case, by month, if `action` is carried out now. */
export function worstCaseAfter(l: LeaseRecord, action: CostlyAction, now: number): Reservation {
  // An offer not yet rented counts at the most it may be rented for (a quote's drift).
  const offer = action.kind === "rent" ? priced(action.offer, driftOf(l)) : l.offers[l.offer_index];
  // What its disk may bill while stopped, and what replacing hosts may add, as at admission
  // (ceiling.ts `stoppedDiskMicros`, `retriesMicros`).
  const base = {
    segments: l.billing.segments,
    max_lifetime: l.policy.max_lifetime,
    stopped_disk_micro_usd: stoppedDiskMicros(offer?.stopped_hourly_usd, l.policy.stopped_ttl),
    // A job that recovers holds what its restarts left may add (recovery.ts).
    retries_micro_usd: offer ? offerRetriesMicros(offer, l.policy, Math.max(0, (l.policy.recovery?.max_restarts ?? 0) - (l.restarts ?? 0))) : 0,
    // A release at the ttl may hold the machine for the command's outputs (policy.ts `outputsWaitMs`).
    outputs_wait_ms: outputsWaitMs(l.kind, l.policy),
  };
  // The rate reserved is the machine's and the bandwidth allowance at its offer's prices
  // (src/billing/bandwidth.ts), as at admission.
  const rate = l.hourly_usd + bandwidthHourlyUsd(l.offers[l.offer_index]);
  switch (action.kind) {
    case "extend":
      // A stopped lease bills nothing more until it starts, and a start re-reserves.
      return worstCase(
        {
          ...base,
          hourly_usd: rate,
          ttl_deadline: action.ttl_deadline,
          session_start: (l.state === "pending" || inSession(l.state)) ? (l.session_started_at ?? now) : null,
        },
        now,
      );
    case "start":
      return worstCase({ ...base, hourly_usd: rate, ttl_deadline: l.ttl_deadline, session_start: now }, now);
    case "rent":
      return worstCase({ ...base, hourly_usd: reservedHourlyUsd(offer!), ttl_deadline: l.ttl_deadline, session_start: now }, now);
    case "rented":
      return worstCase({ ...base, hourly_usd: rentedHourlyUsd(l), ttl_deadline: l.ttl_deadline, session_start: l.session_started_at ?? now }, now);
  }
}

/**
 * What must be reserved before `action`: null when what the lease holds already covers it (no
 * write at all), else the reservation to write in its place.
 */
export function reservationFor(l: LeaseRecord, action: CostlyAction, now: number): Reservation | null {
  const need = worstCaseAfter(l, action, now);
  const held = l.reserved ?? null;
  return fitsIn(need, held) ? null : replacing(need, held);
}

/** The lease's fields that follow the offer it rents: provider (and so account), capabilities, price. */
export interface Following {
  provider: string;
  can_stop: boolean;
  hourly_usd: number;
}

export function following(offer: Offer, canStop: (provider: string) => boolean): Following {
  return { provider: offer.provider, can_stop: canStop(offer.provider), hourly_usd: offer.hourly_usd };
}

/**
 * The next offer after `failedHost` failed: the first later one on a host not excluded. null when
 * none is left (or the lease has used its host attempts).
 */
export function nextOfferOf(l: LeaseRecord, failedHost: string): { index: number; excluded: string[]; offer: Offer | null } {
  const excluded = l.excluded_hosts.includes(failedHost) ? l.excluded_hosts : [...l.excluded_hosts, failedHost];
  let index = l.offer_index + 1;
  while (index < l.offers.length && excluded.includes(l.offers[index]!.host_id)) index++;
  // Each restart of a job that recovers may try host_attempts hosts of its own (recovery.ts `attemptsThisRestart`).
  const offer = index < l.offers.length && l.attempt - (l.attempt_base ?? 0) < l.policy.host_attempts ? l.offers[index]! : null;
  return { index, excluded, offer };
}
