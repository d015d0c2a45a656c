/**
 * An org's settings (`GET/PUT /v1/org/settings`), held on its `orgs` row (docs/storage.md).
 * `require_image_digest`: a lease, and a validate, whose image is not pinned by `@sha256:` is
 * refused with 409 `image_not_pinned` before anything is rented (src/lease/create.ts).
 */
import { z } from "@hono/zod-openapi";
import type { Db } from "../db";

export const OrgSettingsSchema = z
  .object({
    require_image_digest: z.boolean().describe("refuse a lease whose image is not pinned by digest (`@sha256:`) with 409 image_not_pinned (a lease that names none runs its provider's default image, which is pinned)"),
  })
  .openapi("OrgSettings");
export type OrgSettings = z.infer<typeof OrgSettingsSchema>;

export const OrgSettingsUpdateSchema = z.strictObject({ require_image_digest: z.boolean().optional() }).openapi("OrgSettingsUpdate");

/** The org's settings; null when the org is gone. */
export async function orgSettings(db: Db, orgId: string): Promise<OrgSettings | null> {
  const row = await db.selectFrom("orgs").select("require_image_digest").where("id", "=", orgId).executeTakeFirst();
  return row ? { require_image_digest: row.require_image_digest === 1 } : null;
}

/** Sets the fields given; answers the settings after, or null when the org is gone. */
export async function updateOrgSettings(db: Db, orgId: string, update: z.infer<typeof OrgSettingsUpdateSchema>): Promise<OrgSettings | null> {
  if (update.require_image_digest !== undefined) {
    await db.updateTable("orgs").set({ require_image_digest: update.require_image_digest ? 1 : 0 }).where("id", "=", orgId).execute();
  }
  return orgSettings(db, orgId);
}
