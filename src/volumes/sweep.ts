/**
 * The reconciler's look at volumes (docs/volumes.md "Sweeps"), per provider account, level-
 * triggered like its look at machines (src/lease/reaper.ts): it lists the account's volumes by
 * this installation's label prefix and compares them with the `volumes` rows.
 *
 * - A labelled volume whose row is gone (a delete that died between the provider and D1, or a row
 *   lost) is reported: logged and counted, never deleted, since it holds data nobody asked lessor
 *   to throw away.
 * - A `ready` row whose volume the provider no longer lists (deleted behind lessor's back) is
 *   reported the same way; the row stays for its owner to delete.
 * - A `creating` row left by a create whose outcome was unknown is finished when the volume is
 *   listed under its label: the row becomes `ready`, as a repeated `POST` would make it.
 * Volumes without the label are never listed, never touched.
 */
import { installationId } from "../config";
import type { Db } from "../db";
import type { Env } from "../env";
import { installationPrefix, parseVolumeLabel } from "../lease/label";
import type { Provider, Volume } from "../providers/contract";
import { usdToMicros } from "../billing/money";
import { billMade } from "./volumes";

export interface VolumeSweepReport {
  volumes: number;
  /** Labelled volumes with no row: the provider bills them, and lessor knows nothing of them. */
  volumes_unknown: number;
  /** Ready rows whose volume the provider no longer lists. */
  volumes_missing: number;
  /** `creating` rows finished from the listing. */
  volumes_adopted: number;
}

/** How long a `creating` row is left to its own request before the sweep finishes it from the listing. */
const ADOPT_AFTER_MS = 60_000;

export async function sweepVolumes(env: Env, db: Db, account: { provider: Provider; org_id: string | null }, now: number): Promise<VolumeSweepReport> {
  const { provider } = account;
  const installation = installationId(env);
  const listed = (await provider.listVolumes!(installationPrefix(installation))).filter((v) => parseVolumeLabel(installation, v.label) !== null);
  let rowsQuery = db.selectFrom("volumes").selectAll().where("provider", "=", provider.name);
  // An org's own account holds only its volumes; a shared one (the sim) every org's.
  if (account.org_id !== null) rowsQuery = rowsQuery.where("org_id", "=", account.org_id);
  const rows = await rowsQuery.execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const report: VolumeSweepReport = { volumes: listed.length, volumes_unknown: 0, volumes_missing: 0, volumes_adopted: 0 };

  const listedIds = new Set<string>();
  for (const v of listed) {
    listedIds.add(v.id);
    const row = byId.get(parseVolumeLabel(installation, v.label)!);
    if (!row) {
      // In an org's own account, a volume of another org's row (the same key stored twice) is that org's.
      if (account.org_id !== null && (await db.selectFrom("volumes").select("id").where("label", "=", v.label).executeTakeFirst())) continue;
      report.volumes_unknown++;
      console.log(JSON.stringify({ msg: "volume without a row", provider: provider.name, volume_id: v.id, label: v.label }));
      continue;
    }
    if (row.state === "creating" && row.updated_at < now - ADOPT_AFTER_MS) await adopt(db, row.id, row.updated_at, v, now).then((n) => (report.volumes_adopted += n));
  }
  for (const row of rows) {
    if (row.state !== "ready" || row.provider_volume_id === null || listedIds.has(row.provider_volume_id)) continue;
    report.volumes_missing++;
    console.log(JSON.stringify({ msg: "volume gone at its provider", provider: provider.name, volume: row.id, provider_volume_id: row.provider_volume_id }));
  }
  return report;
}

/** A `creating` row made `ready` from what the provider lists under its label (compare-and-swap on `updated_at`). */
async function adopt(db: Db, id: string, updatedAt: number, v: Volume, now: number): Promise<number> {
  const done = await db
    .updateTable("volumes")
    .set({ provider_volume_id: v.id, region: v.region, state: "ready", gb_month_micro_usd: v.usd_per_gb_month === null ? null : usdToMicros(v.usd_per_gb_month), updated_at: now })
    .where("id", "=", id)
    .where("state", "=", "creating")
    .where("updated_at", "=", updatedAt)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) === 0) return 0;
  await billMade(db, id, v).execute();
  return 1;
}
