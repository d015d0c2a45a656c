/**
 * Idle volumes (docs/volumes.md "Idle volumes"): a volume bills whether or not a lease mounts it,
 * so an org may set `volume_idle_ttl` (src/orgs/settings.ts; default: none) and have each volume
 * that no live lease has mounted for that long reported, or, with `volume_idle_action: "delete"`,
 * deleted. A volume is idle from the release of the last lease that mounted it, or from its
 * creation when none ever did; a lease not released (a stopped one too) keeps it in use.
 *
 * The cron's step is level-triggered (STYLE.md rule 8): each run reads which volumes are idle now,
 * reports them, and deletes (for the orgs that asked) through the path `DELETE /v1/volumes/:id`
 * takes (`deleteVolume`), whose one conditional statement refuses a volume a lease mounts by then,
 * so a lease that mounts it between the read and the delete keeps it.
 */
import { sql } from "kysely";
import type { Db } from "../db";
import type { Env } from "../env";
import { ApiError, errorText } from "../errors";
import { PENDING_MS } from "../billing/budget";
import { deleteVolume } from "./volumes";

/** Idle volumes looked at in one run; the rest next minute. */
const IDLE_BATCH = 100;

export interface VolumeIdleReport {
  /** Volumes idle past their org's volume_idle_ttl now (reported, or deleted). */
  idle: number;
  deleted: number;
  /** Deletes that did not happen this run (mounted meanwhile, the provider did not answer). */
  failed: number;
}

/**
 * When each volume became idle, or null while a lease not released mounts it (or one whose index
 * row is not written yet, within PENDING_MS): the last release of a lease that mounted it, else its
 * creation. Pure, for the pieces read from D1.
 */
export function idleSince(volume: { created_at: number }, mountedBy: readonly string[], lastRelease: number | null): number | null {
  if (mountedBy.length > 0) return null;
  return Math.max(volume.created_at, lastRelease ?? 0);
}

/** The latest release of a lease that mounted each of `volumeIds` (absent: none was released). */
export async function lastReleases(db: Db, volumeIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (volumeIds.length === 0) return out;
  const rows = await db
    .selectFrom("volume_mounts as m")
    .innerJoin("leases as l", "l.id", "m.lease_id")
    .select(["m.volume_id", (eb) => eb.fn.max("l.released_at").as("released_at")])
    .where("m.volume_id", "in", volumeIds)
    .where("l.state", "=", "released")
    .groupBy("m.volume_id")
    .execute();
  for (const r of rows) if (r.released_at !== null) out.set(r.volume_id, Number(r.released_at));
  return out;
}

/** The volumes idle past their org's `volume_idle_ttl` at `now`: reported, and deleted where the org asked. */
export async function runVolumeIdle(env: Env, db: Db, now: number): Promise<VolumeIdleReport> {
  const idleFrom = sql<number>`MAX(v.created_at, COALESCE((SELECT MAX(l.released_at) FROM volume_mounts m JOIN leases l ON l.id = m.lease_id WHERE m.volume_id = v.id AND l.state = 'released'), 0))`;
  const rows = await db
    .selectFrom("volumes as v")
    .innerJoin("orgs as o", "o.id", "v.org_id")
    .select(["v.id", "v.org_id", "v.name", "v.provider", "o.volume_idle_ttl_ms as ttl", "o.volume_idle_action as action", idleFrom.as("idle_since")])
    .where("o.volume_idle_ttl_ms", "is not", null)
    .where("v.state", "=", "ready")
    // In use: as deleteVolume counts it (a lease not released, or one not yet in the index).
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("volume_mounts as m")
            .leftJoin("leases as l", "l.id", "m.lease_id")
            .select("m.lease_id")
            .whereRef("m.volume_id", "=", "v.id")
            .where((w) => w.or([w.and([w("l.id", "is", null), w("m.created_at", ">", now - PENDING_MS)]), w.and([w("l.state", "is not", null), w("l.state", "!=", "released")])])),
        ),
      ),
    )
    .where(sql<boolean>`${idleFrom} + o.volume_idle_ttl_ms <= ${now}`)
    .orderBy("v.id")
    .limit(IDLE_BATCH)
    .execute();
  const report: VolumeIdleReport = { idle: rows.length, deleted: 0, failed: 0 };
  for (const v of rows) {
    const idle = { volume: v.id, org_id: v.org_id, name: v.name, provider: v.provider, idle_since: new Date(v.idle_since).toISOString(), action: v.action };
    console.log(JSON.stringify({ msg: "volume idle", ...idle }));
    if (v.action !== "delete") continue;
    try {
      await deleteVolume(db, env, v.org_id, v.id, now);
      report.deleted++;
      console.log(JSON.stringify({ msg: "idle volume deleted", ...idle }));
    } catch (e) {
      // Mounted meanwhile (409 volume_in_use), or the provider did not answer: the next run looks again.
      if (!(e instanceof ApiError)) throw e;
      report.failed++;
      console.log(JSON.stringify({ msg: "idle volume not deleted", ...idle, error: errorText(e) }));
    }
  }
  return report;
}
