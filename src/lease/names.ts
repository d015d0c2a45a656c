/**
 * Lease names: a lease may carry a name, unique among its org's live leases (docs/storage.md,
 * `lease_names`). `POST /v1/leases` claims the name before the lease's object exists, with one
 * conditional insert, so of several creates with one name exactly one wins. The index write that
 * says the lease is released frees the name in the same statement (a trigger of migration 0013).
 */
import { z } from "@hono/zod-openapi";
import { PENDING_MS } from "../billing/budget";
import type { Db } from "../db";
import { ApiError } from "../errors";

export const LEASE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const LeaseNameSchema = z
  .string()
  .regex(LEASE_NAME, "a lease name is 1 to 63 lowercase letters, digits and '-', beginning with a letter or digit")
  .describe("unique among the org's live leases; a released lease frees its name")
  .openapi({ example: "train-7b" });

export interface NameClaim {
  org_id: string;
  name: string;
  lease_id: string;
}

/**
 * Claims `name` for the lease about to be created, or refuses with 409 `name_taken`. A claim whose
 * lease never reached the index within PENDING_MS (a create that died between claiming and making
 * its lease) is abandoned, and taken over like a budget reservation's.
 */
export async function claimLeaseName(db: Db, claim: NameClaim, now: number): Promise<void> {
  const won = await db
    .insertInto("lease_names")
    .values({ ...claim, created_at: now })
    .onConflict((oc) =>
      oc
        .columns(["org_id", "name"])
        .doUpdateSet({ lease_id: claim.lease_id, created_at: now })
        .where("lease_names.created_at", "<", now - PENDING_MS)
        .where((eb) => eb.not(eb.exists(eb.selectFrom("leases").select("leases.id").whereRef("leases.id", "=", "lease_names.lease_id")))),
    )
    .returning("lease_id")
    .executeTakeFirst();
  if (won?.lease_id === claim.lease_id) return;
  const holder = await db.selectFrom("lease_names").select("lease_id").where("org_id", "=", claim.org_id).where("name", "=", claim.name).executeTakeFirst();
  // Already this lease's (handed over to it, or a retried create): held, not taken.
  if (holder?.lease_id === claim.lease_id) return;
  throw new ApiError(409, "name_taken", `a live lease of this org is already named "${claim.name}"`, { name: claim.name, ...(holder ? { lease_id: holder.lease_id } : {}) });
}

/** Gives back a name whose lease was never made (its create failed first). */
export async function freeLeaseName(db: Db, claim: NameClaim): Promise<void> {
  await db.deleteFrom("lease_names").where("org_id", "=", claim.org_id).where("name", "=", claim.name).where("lease_id", "=", claim.lease_id).execute();
}

/**
 * Hands `name` from lease `from` to lease `to` (a deployment recreated: its new lease takes the
 * name while the old one is still releasing). Only a name `from` holds moves; the old lease's
 * release then frees nothing, since the trigger frees by lease id.
 */
export async function handOverLeaseName(db: Db, orgId: string, name: string, from: string, to: string, now: number): Promise<void> {
  await db.updateTable("lease_names").set({ lease_id: to, created_at: now }).where("org_id", "=", orgId).where("name", "=", name).where("lease_id", "=", from).execute();
}
