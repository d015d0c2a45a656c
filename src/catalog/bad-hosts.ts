/**
 * The org's bad hosts in D1 (migrations/0017_bad_hosts.sql, docs/design.md "Placement"): written
 * by the lease's runner when it replaces a host that failed (src/lease/bad-host.ts decides which),
 * read by every selection of the org and by its catalog listing, and told to the org's object, which
 * refuses quotes on them (src/catalog/quote-store.ts).
 */
import type { Db } from "../db";
import type { Env } from "../env";
import type { BadHostMark, BadHostReason } from "../lease/bad-host";
import { orgQuotes, type QuoteBadHost } from "./quote-store";

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
  // This isolate's next quote for the org reads them again (the others' are refused by the org's
  // object once it is told, `tellBadHost`, and read them again within BAD_HOSTS_MEMORY_MS).
  remembered.delete(mark.org_id);
}

/** The org's bad hosts whose time has not run out at `now` (through the primary key's org prefix). */
export async function badHostsOf(db: Db, orgId: string, now: number): Promise<BadHosts> {
  const rows = await db.selectFrom("bad_hosts").select(["provider", "host_id", "reason", "until"]).where("org_id", "=", orgId).where("until", ">", now).execute();
  return new Map(rows.map((r) => [badHostKey(r.provider, r.host_id), { reason: r.reason, until: r.until }]));
}

/**
 * Tells the org's object of a bad host recorded by `recordBadHost`: the object refuses a quote
 * that names it (src/catalog/quote-store.ts), so every isolate's quotes leave it out at once, not
 * only once they read D1 again. Called by the lease's runner after the D1 write; advisory as the
 * write is.
 */
export async function tellBadHost(env: Pick<Env, "ORG_EVENTS">, mark: BadHostMark): Promise<void> {
  await orgQuotes(env, mark.org_id).badHostMarked({ host: badHostKey(mark.provider, mark.host_id), reason: mark.reason, until: mark.until });
}

/**
 * How long this isolate uses an org's bad hosts it read for its quotes (`rememberedBadHosts`).
 * The org's object refuses a quote on a host its runners marked since (`tellBadHost`), so this
 * bounds only what a quote may miss of a mark that did not reach the object, or of a row written
 * behind the API. A lease create reads them from D1 itself.
 */
export const BAD_HOSTS_MEMORY_MS = 60_000;
const REMEMBERED_ORGS_MAX = 10_000;
/** By org: what `badHostsOf` answered, and the time it was asked for. */
const remembered = new Map<string, { hosts: BadHosts; at: number }>();

/**
 * The org's bad hosts in force at `now` as this isolate last read them, read again when it holds
 * none for the org (or they are older than BAD_HOSTS_MEMORY_MS). While in force a row only lasts
 * longer (`recordBadHost` keeps the later `until`), and retention deletes only rows whose time has
 * run out, so what is remembered is a subset of what D1 holds in force at `now`. A subset never
 * changes a `no_capacity` answer: the bad-host constraint is the selection's last one.
 */
export async function rememberedBadHosts(db: Db, orgId: string, now: number): Promise<BadHosts> {
  const held = remembered.get(orgId);
  if (held && now >= held.at && now - held.at < BAD_HOSTS_MEMORY_MS) return inForce(held.hosts, now);
  return readBadHosts(db, orgId, now);
}

/** The org's bad hosts read from D1 now (`badHostsOf`), and remembered for `rememberedBadHosts`. */
export async function readBadHosts(db: Db, orgId: string, now: number): Promise<BadHosts> {
  const hosts = await badHostsOf(db, orgId, now);
  if (remembered.size >= REMEMBERED_ORGS_MAX) remembered.clear();
  remembered.set(orgId, { hosts, at: now });
  return hosts;
}

/**
 * `known` and the hosts the org's object refused a quote for (`marks`), in force at `now`; the
 * marks are remembered with what this isolate read of the org (each was written to D1 before the
 * object was told, so what is remembered is still a subset of D1's).
 */
export function rememberMarks(orgId: string, known: BadHosts, marks: readonly QuoteBadHost[], now: number): BadHosts {
  const merge = (into: Map<string, BadHost>) => {
    for (const m of marks) if ((into.get(m.host)?.until ?? 0) < m.until) into.set(m.host, { reason: m.reason, until: m.until });
    return into;
  };
  const held = remembered.get(orgId);
  if (held) remembered.set(orgId, { hosts: merge(new Map(held.hosts)), at: held.at });
  return inForce(merge(new Map(known)), now);
}

const inForce = (hosts: BadHosts, now: number): BadHosts => new Map([...hosts].filter(([, host]) => host.until > now));

/** How an offer's bad host is rendered: null when the host is not bad for the org. */
export function renderBadHost(bad: BadHosts, provider: string, hostId: string): { reason: BadHostReason; until: string } | null {
  const b = bad.get(badHostKey(provider, hostId));
  return b ? { reason: b.reason, until: new Date(b.until).toISOString() } : null;
}
