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
  const org: OrgRow = { id: newId("org", now), name, created_at: now, require_image_digest: 0, machine_activity_max_ms: null, artifact_retention_ms: null, volume_idle_ttl_ms: null, volume_idle_action: "report" };
  const key = await mintKey(org.id, "admin", "admin", now);
  await batch(d1, [db.insertInto("orgs").values(org), db.insertInto("api_keys").values(key.row)]);
  return { org, key };
}

/** What the API shows of an org: fields that never change once the org is made. */
export type OrgIdentity = Pick<OrgRow, "id" | "name" | "created_at">;

/**
 * How long this isolate trusts an org it read. Nothing in the API renames or deletes an org, so
 * this bounds only a change made behind it (by hand, in D1), as `KEY_ROW_TTL_MS` does for keys.
 */
export const ORG_IDENTITY_TTL_MS = 60_000;
const ORG_IDENTITIES_MAX = 10_000;
const identities = new Map<string, { org: OrgIdentity; at: number }>();

/**
 * The org's identity, null when it is gone; read from D1 at most once per ORG_IDENTITY_TTL_MS in each
 * isolate, so `GET /v1/org` costs no D1 read while it is remembered. Settings are mutable and are
 * not part of it: they are read where they are used (settings.ts).
 */
export async function getOrgIdentity(db: Db, id: string, now: number): Promise<OrgIdentity | null> {
  const held = identities.get(id);
  if (held && now >= held.at && now - held.at < ORG_IDENTITY_TTL_MS) return held.org;
  const org = await db.selectFrom("orgs").select(["id", "name", "created_at"]).where("id", "=", id).executeTakeFirst();
  if (!org) {
    identities.delete(id);
    return null;
  }
  if (identities.size >= ORG_IDENTITIES_MAX) identities.clear();
  identities.set(id, { org, at: now });
  return org;
}

export function renderOrg(o: OrgIdentity) {
  return { id: o.id, name: o.name, created_at: new Date(o.created_at).toISOString() };
}
