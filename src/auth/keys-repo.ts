/** An org's API keys as D1 lists them (docs/storage.md): never their secrets, which D1 does not hold. */
import type { Db } from "../db";
import type { ApiKeyRow } from "../db/schema";

/** A page of the org's keys, oldest first, after the key `after` names; one row more than `limit`. */
export async function listKeys(db: Db, orgId: string, page: { after?: { id: string } | null; limit: number }): Promise<ApiKeyRow[]> {
  let q = db.selectFrom("api_keys").selectAll().where("org_id", "=", orgId);
  if (page.after) q = q.where("id", ">", page.after.id);
  // One more than asked, so the page knows whether another follows.
  return q.orderBy("id").limit(page.limit + 1).execute();
}
