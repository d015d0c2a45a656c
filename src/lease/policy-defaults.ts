/**
 * Lease kinds and the hard caps each gets when the caller says nothing. Every kind has a finite
 * hard cap unless the caller passes `null` for it explicitly.
 */
export const LEASE_KINDS = ["deployment", "scratch", "job"] as const;
export type LeaseKind = (typeof LEASE_KINDS)[number];

const HOUR = 3_600_000;

export interface HardCaps {
  ttl: number | null;
  max_lifetime: number | null;
}

export const HARD_CAP_DEFAULTS: Record<LeaseKind, HardCaps> = {
  scratch: { ttl: 4 * HOUR, max_lifetime: 24 * HOUR },
  job: { ttl: null, max_lifetime: 24 * HOUR },
  deployment: { ttl: null, max_lifetime: 24 * HOUR },
};

/** The caller's caps over the kind's defaults: `undefined` takes the default, `null` removes it. */
export function hardCaps(kind: LeaseKind, given: { ttl?: number | null; max_lifetime?: number | null }): HardCaps {
  const d = HARD_CAP_DEFAULTS[kind];
  return {
    ttl: given.ttl === undefined ? d.ttl : given.ttl,
    max_lifetime: given.max_lifetime === undefined ? d.max_lifetime : given.max_lifetime,
  };
}

/** The longest a lease under these caps can bill for, or null when nothing caps it. */
export function cappedDurationMs(caps: HardCaps): { ms: number; basis: "ttl" | "max_lifetime" } | null {
  const { ttl, max_lifetime } = caps;
  if (ttl === null && max_lifetime === null) return null;
  if (max_lifetime === null || (ttl !== null && ttl <= max_lifetime)) return { ms: ttl!, basis: "ttl" };
  return { ms: max_lifetime, basis: "max_lifetime" };
}
