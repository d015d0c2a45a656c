/** Lists of an org's leases, read from the D1 index (docs/storage.md): the bodies as the index holds them. */
import type { Db } from "../db";
import type { LeaseKind } from "./policy";
import type { LeaseState } from "./state";

export async function listLeaseBodies(
  db: Db,
  orgId: string,
  filter: { state?: LeaseState; kind?: LeaseKind; name?: string; after?: { id: string } | null; limit: number },
): Promise<Array<{ id: string; body: string }>> {
  let q = db.selectFrom("leases").select(["id", "body"]).where("org_id", "=", orgId);
  if (filter.state) q = q.where("state", "=", filter.state);
  if (filter.kind) q = q.where("kind", "=", filter.kind);
  if (filter.name) q = q.where("name", "=", filter.name);
  if (filter.after) q = q.where("id", "<", filter.after.id);
  // One more than asked, so the page knows whether another follows.
  return q.orderBy("id", "desc").limit(filter.limit + 1).execute();
}
