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
  // This isolate's next quote for the org reads them again (the others' find out in their insert).
  remembered.delete(mark.org_id);
}

/** The org's bad hosts whose time has not run out at `now` (through the primary key's org prefix). */
export async function badHostsOf(db: Db, orgId: string, now: number): Promise<BadHosts> {
  const rows = await db.selectFrom("bad_hosts").select(["provider", "host_id", "reason", "until"]).where("org_id", "=", orgId).where("until", ">", now).execute();
  return new Map(rows.map((r) => [badHostKey(r.provider, r.host_id), { reason: r.reason, until: r.until }]));
}

/**
 * How long this isolate uses an org's bad hosts it read for its quotes (`rememberedBadHosts`). A
 * quote stores itself only while their count is still D1's, so this bounds only what a quote that
 * answers `no_capacity` may miss: a row deleted by hand, behind the API.
 */
export const BAD_HOSTS_MEMORY_MS = 60_000;
const REMEMBERED_ORGS_MAX = 10_000;
/** By org: what `badHostsOf` answered, and the time it was asked for. */
const remembered = new Map<string, { hosts: BadHosts; at: number }>();

/**
 * The org's bad hosts in force at `now` as this isolate last read them, read again when it holds
 * none for the org (or they are older than BAD_HOSTS_MEMORY_MS). While in force a row only lasts
 * longer (`recordBadHost` keeps the later `until`), and retention deletes only rows whose time has
 * run out, so what is remembered is a subset of what D1 holds in force at `now`, equal to it
 * exactly when there are as many: the quote's insert checks that count in the same statement
 * (src/catalog/quote.ts) and reads them again when it differs. A subset never changes a
 * `no_capacity` answer: the bad-host constraint is the selection's last one.
 */
export async function rememberedBadHosts(db: Db, orgId: string, now: number): Promise<BadHosts> {
  const held = remembered.get(orgId);
  if (held && now >= held.at && now - held.at < BAD_HOSTS_MEMORY_MS) {
    return new Map([...held.hosts].filter(([, host]) => host.until > now));
  }
  return readBadHosts(db, orgId, now);
}

/** The org's bad hosts read from D1 now (`badHostsOf`), and remembered for `rememberedBadHosts`. */
export async function readBadHosts(db: Db, orgId: string, now: number): Promise<BadHosts> {
  const hosts = await badHostsOf(db, orgId, now);
  if (remembered.size >= REMEMBERED_ORGS_MAX) remembered.clear();
  remembered.set(orgId, { hosts, at: now });
  return hosts;
}

/** How an offer's bad host is rendered: null when the host is not bad for the org. */
export function renderBadHost(bad: BadHosts, provider: string, hostId: string): { reason: BadHostReason; until: string } | null {
  const b = bad.get(badHostKey(provider, hostId));
  return b ? { reason: b.reason, until: new Date(b.until).toISOString() } : null;
}
