/**
 * An org's settings (`GET/PUT /v1/org/settings`), held on its `orgs` row (docs/storage.md).
 * `require_image_digest`: a lease, and a validate, whose image is not pinned by `@sha256:` is
 * refused with 409 `image_not_pinned` before anything is rented (src/lease/create.ts).
 * `machine_activity_max`: how long, per session, what a deployment's machine reports of itself
 * (requests its model server's metrics show, or metrics it cannot read) may keep the lease in use
 * (src/lease/decide.ts `machineUseUntil`; docs/deployments.md "Activity"). A lease keeps the value
 * its org had when it was created.
 * `artifact_retention`: how long a released lease's artifacts are kept (docs/artifacts.md), read by
 * the cron when it first sees the release (src/artifacts/store.ts `runStorageRetention`).
 * `volume_idle_ttl` (null: never, the default) and `volume_idle_action` (`report`, the default, or
 * `delete`): what becomes of a volume no live lease has mounted for that long (src/volumes/idle.ts,
 * docs/volumes.md "Idle volumes"); read by the cron each minute, so a change applies at once.
 */
import { z } from "@hono/zod-openapi";
import type { Db } from "../db";
import { DurationSchema, formatDuration, parseDuration } from "../duration";
import { DEFAULT_MACHINE_ACTIVITY_MAX_MS } from "../lease/decide";
import { DEFAULT_ARTIFACT_RETENTION_MS } from "../artifacts/limits";

/** What becomes of a volume idle for the org's volume_idle_ttl. */
export const VOLUME_IDLE_ACTIONS = ["report", "delete"] as const;

export const OrgSettingsSchema = z
  .object({
    require_image_digest: z.boolean().describe("refuse a lease whose image is not pinned by digest (`@sha256:`) with 409 image_not_pinned (a lease that names none runs its provider's default image, which is pinned)"),
    machine_activity_max: z
      .string()
      .describe(`how long into a session what a deployment's machine reports keeps it in use (docs/deployments.md "Activity"); default ${formatDuration(DEFAULT_MACHINE_ACTIVITY_MAX_MS)}`),
    artifact_retention: z.string().describe(`how long a released lease's artifacts are kept; default ${formatDuration(DEFAULT_ARTIFACT_RETENTION_MS)}`),
    volume_idle_ttl: z.string().nullable().describe("how long a volume may go with no live lease mounting it before it is reported (or deleted: volume_idle_action); null, the default: never"),
    volume_idle_action: z.enum(VOLUME_IDLE_ACTIONS).describe("what becomes of a volume idle for volume_idle_ttl: `report` (the default: logged by the cron, and its idle_since shows it) or `delete` (as DELETE /v1/volumes/:id, never while a lease mounts it)"),
  })
  .openapi("OrgSettings");
export type OrgSettings = z.infer<typeof OrgSettingsSchema>;

export const OrgSettingsUpdateSchema = z
  .strictObject({
    require_image_digest: z.boolean().optional(),
    machine_activity_max: DurationSchema.optional(),
    artifact_retention: DurationSchema.optional(),
    volume_idle_ttl: DurationSchema.nullable().optional().describe("null: never"),
    volume_idle_action: z.enum(VOLUME_IDLE_ACTIONS).optional(),
  })
  .openapi("OrgSettingsUpdate");

/** The org's settings; null when the org is gone. */
export async function orgSettings(db: Db, orgId: string): Promise<OrgSettings | null> {
  const row = await db
    .selectFrom("orgs")
    .select(["require_image_digest", "machine_activity_max_ms", "artifact_retention_ms", "volume_idle_ttl_ms", "volume_idle_action"])
    .where("id", "=", orgId)
    .executeTakeFirst();
  return row
    ? {
        require_image_digest: row.require_image_digest === 1,
        machine_activity_max: formatDuration(row.machine_activity_max_ms ?? DEFAULT_MACHINE_ACTIVITY_MAX_MS),
        artifact_retention: formatDuration(row.artifact_retention_ms ?? DEFAULT_ARTIFACT_RETENTION_MS),
        volume_idle_ttl: row.volume_idle_ttl_ms === null ? null : formatDuration(row.volume_idle_ttl_ms),
        volume_idle_action: row.volume_idle_action,
      }
    : null;
}

/** `machine_activity_max` in ms, as a lease takes it (a settings answer always holds a valid duration). */
export function machineActivityMaxMs(settings: OrgSettings): number {
  return parseDuration(settings.machine_activity_max) ?? DEFAULT_MACHINE_ACTIVITY_MAX_MS;
}

/** Sets the fields given; answers the settings after, or null when the org is gone. */
export async function updateOrgSettings(db: Db, orgId: string, update: z.infer<typeof OrgSettingsUpdateSchema>): Promise<OrgSettings | null> {
  const set = {
    ...(update.require_image_digest === undefined ? {} : { require_image_digest: update.require_image_digest ? (1 as const) : (0 as const) }),
    ...(update.machine_activity_max === undefined ? {} : { machine_activity_max_ms: parseDuration(update.machine_activity_max)! }),
    ...(update.artifact_retention === undefined ? {} : { artifact_retention_ms: parseDuration(update.artifact_retention)! }),
    ...(update.volume_idle_ttl === undefined ? {} : { volume_idle_ttl_ms: update.volume_idle_ttl === null ? null : parseDuration(update.volume_idle_ttl)! }),
    ...(update.volume_idle_action === undefined ? {} : { volume_idle_action: update.volume_idle_action }),
  };
  if (Object.keys(set).length > 0) await db.updateTable("orgs").set(set).where("id", "=", orgId).execute();
  return orgSettings(db, orgId);
}
