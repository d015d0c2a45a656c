/** How a lease is shown: the API's view, and the body the D1 index lists. */
import { renderOffer } from "../catalog/offers-repo";
import { renderBilling } from "./billing";
import { renderPolicy } from "./policy";
import type { LeaseRecord } from "./state";
import { iso } from "../time";


/** `now` dates the estimate of a lease still accruing. */
export function renderLease(l: LeaseRecord, now: number = Date.now()) {
  const offer = l.offers[l.offer_index] ?? null;
  return {
    id: l.id,
    kind: l.kind,
    state: l.state,
    state_since: iso(l.state_since),
    provider: l.provider,
    machine: l.machine_id === null ? null : { id: l.machine_id, label: l.label, status: l.machine_status, observed_at: iso(l.observed_at) },
    offer: offer ? renderOffer(offer) : null,
    fallbacks: l.offers.slice(l.offer_index + 1).map(renderOffer),
    excluded_hosts: l.excluded_hosts,
    hourly_usd: l.hourly_usd,
    policy: renderPolicy(l.policy),
    quote_id: l.quote_id,
    reconcile_required: l.reconcile_required,
    created_at: iso(l.created_at),
    session_started_at: iso(l.session_started_at),
    ready_at: iso(l.ready_at),
    ttl_expires_at: iso(l.ttl_deadline),
    last_activity_at: iso(l.last_activity_at),
    lock_until: iso(l.lock_until),
    stopped_at: iso(l.stopped_at),
    release_reason: l.release_reason,
    released_at: iso(l.released_at),
    warnings: l.warnings,
    billing: renderBilling(l, now),
  };
}

export type LeaseView = ReturnType<typeof renderLease>;
