/**
 * Which host failures the lease's org remembers (docs/design.md "Placement"). Pure (STYLE.md
 * rule 1): the runner writes what this returns to D1 (src/catalog/bad-hosts.ts).
 *
 * A host whose machine never booted in time, went into error, or vanished is left out of every
 * selection of the org for LESSOR_BAD_HOST_TTL, not only of the lease that saw it. A machine
 * replaced because it landed outside the lease's regions is not the host's failure: another
 * lease of the org, with other regions, may use it.
 */
import { parseDuration } from "../duration";
import type { LeaseRecord, Reason } from "./state";

/** The replacement reasons that mark a host bad for the whole org. */
export const BAD_HOST_REASONS = ["boot_timeout", "host_failed", "provider_lost"] as const satisfies readonly Reason[];
export type BadHostReason = (typeof BAD_HOST_REASONS)[number];

/** How long a bad host is left out of its org's selections when LESSOR_BAD_HOST_TTL is unset. */
export const DEFAULT_BAD_HOST_TTL_MS = 24 * 3_600_000;

export interface BadHostMark {
  org_id: string;
  provider: string;
  host_id: string;
  reason: BadHostReason;
  lease_id: string;
  until: number;
}

const isBadHostReason = (reason: Reason): reason is BadHostReason => (BAD_HOST_REASONS as readonly string[]).includes(reason);

/**
 * What the org remembers of the lease's current host, replaced for `reason` (`why`: the
 * replacement's own detail, `misplaced_in` when it landed outside the lease's regions), or null:
 * not the host's failure, no host named, or remembering turned off (`ttlMs` 0).
 */
export function badHostMark(l: LeaseRecord, reason: Reason, why: Record<string, unknown>, ttlMs: number, now: number): BadHostMark | null {
  if (ttlMs <= 0 || !isBadHostReason(reason) || "misplaced_in" in why) return null;
  const offer = l.offers[l.offer_index];
  if (!offer || offer.host_id === "") return null;
  return { org_id: l.org_id, provider: offer.provider, host_id: offer.host_id, reason, lease_id: l.id, until: now + ttlMs };
}

/**
 * LESSOR_BAD_HOST_TTL: a duration (`24h`, `90m`), `0` to remember no host, or null when the text
 * is neither (src/config.ts refuses it). Unset: DEFAULT_BAD_HOST_TTL_MS.
 */
export function badHostTtlMs(value: string | undefined): number | null {
  if (value === undefined || value === "") return DEFAULT_BAD_HOST_TTL_MS;
  if (value === "0") return 0;
  return parseDuration(value);
}
