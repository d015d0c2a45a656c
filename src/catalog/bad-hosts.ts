/**
 * The org's bad hosts in D1 (migrations/0017_bad_hosts.sql, docs/design.md "Placement"): written
 * by the lease's runner when it replaces a host that failed (src/lease/bad-host.ts decides which),
 * read by every selection of the org and by its catalog listing.
 */
import type { Db } from "../db";
import type { BadHostMark, BadHostReason } from "../lease/bad-host";

/** Why a host is left out, and until when (ms). */
export interface BadHost {
  reason: BadHostReason;
  until: number;
}

/** The org's bad hosts in force, by `badHostKey`. */
export type BadHosts = ReadonlyMap<string, BadHost>;

export const NO_BAD_HOSTS: BadHosts = new Map();

export const badHostKey = (provider: string, hostId: string) => `${provider}/${hostId}`;

/**
 * Records a failed host for its org. A host already recorded keeps the later `until` and takes the
 * newer reason: one write, whichever lease saw it fail.
 */
export async function recordBadHost(db: Db, mark: BadHostMark, now: number): Promise<void> {
  await db
    .insertInto("bad_hosts")
    .values({ ...mark, created_at: now })
    .onConflict((oc) =>
      oc.columns(["org_id", "provider", "host_id"]).doUpdateSet((eb) => ({
        reason: eb.ref("excluded.reason"),
        lease_id: eb.ref("excluded.lease_id"),
        until: eb.fn("max", [eb.ref("bad_hosts.until"), eb.ref("excluded.until")]),
      })),
    )
    .execute();
}

/** The org's bad hosts whose time has not run out at `now` (through the primary key's org prefix). */
export async function badHostsOf(db: Db, orgId: string, now: number): Promise<BadHosts> {
  const rows = await db.selectFrom("bad_hosts").select(["provider", "host_id", "reason", "until"]).where("org_id", "=", orgId).where("until", ">", now).execute();
  return new Map(rows.map((r) => [badHostKey(r.provider, r.host_id), { reason: r.reason, until: r.until }]));
}

/** How an offer's bad host is rendered: null when the host is not bad for the org. */
export function renderBadHost(bad: BadHosts, provider: string, hostId: string): { reason: BadHostReason; until: string } | null {
  const b = bad.get(badHostKey(provider, hostId));
  return b ? { reason: b.reason, until: new Date(b.until).toISOString() } : null;
}
