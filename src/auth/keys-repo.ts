/** An org's API keys in D1 (docs/storage.md, `api_keys`): created within the org's limit, and listed, never with their secrets, which D1 does not hold. */
import type { Db } from "../db";
import type { ApiKeyRow } from "../db/schema";
import { mintKey, type NewKey } from "./keys";
import { insertKeyWithinLimit, limitReached } from "./limits";
import type { Scope } from "./principal";

/**
 * A new key of the org, its secret with it (shown once). Counted and inserted in one statement, so
 * concurrent creates cannot pass the org's limit: past it, 409 `limit_reached`.
 */
export async function createKey(d1: D1Database, orgId: string, name: string, scope: Scope, now: number): Promise<NewKey> {
  const key = await mintKey(orgId, name, scope, now);
  const met = await insertKeyWithinLimit(d1, key.row);
  if (met) throw limitReached(met);
  return key;
}

/** A page of the org's keys, oldest first, after the key `after` names; one row more than `limit`. */
export async function listKeys(db: Db, orgId: string, page: { after?: { id: string } | null; limit: number }): Promise<ApiKeyRow[]> {
  let q = db.selectFrom("api_keys").selectAll().where("org_id", "=", orgId);
  if (page.after) q = q.where("id", ">", page.after.id);
  // One more than asked, so the page knows whether another follows.
  return q.orderBy("id").limit(page.limit + 1).execute();
}
