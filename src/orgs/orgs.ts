/** Orgs, the tenants (docs/storage.md, `orgs`): made with their first admin key, read by their credentials. */
import { mintKey, type NewKey } from "../auth/keys";
import { batch, type Db } from "../db";
import type { OrgRow } from "../db/schema";
import { newId } from "../ids";

/**
 * A new org and its first admin key, written in one D1 batch: an org never exists without a key
 * that can administer it (docs/storage.md: writes that must land together go in one batch).
 */
export async function createOrg(db: Db, d1: D1Database, name: string, now: number): Promise<{ org: OrgRow; key: NewKey }> {
  const org: OrgRow = { id: newId("org", now), name, created_at: now, require_image_digest: 0 };
  const key = await mintKey(org.id, "admin", "admin", now);
  await batch(d1, [db.insertInto("orgs").values(org), db.insertInto("api_keys").values(key.row)]);
  return { org, key };
}

export async function getOrg(db: Db, id: string): Promise<OrgRow | null> {
  return (await db.selectFrom("orgs").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

export function renderOrg(o: OrgRow) {
  return { id: o.id, name: o.name, created_at: new Date(o.created_at).toISOString() };
}
