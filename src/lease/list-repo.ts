/** Lists of an org's leases, from its org's lease index (src/orgs/lease-index.ts): the bodies as the index holds them. */
import type { Env } from "../env";
import { orgEventsStub } from "../events/forward";
import type { LeaseKind } from "./policy";
import type { LeaseState } from "./state";

export async function listLeaseBodies(
  env: Pick<Env, "ORG_EVENTS">,
  orgId: string,
  filter: { state?: LeaseState; kind?: LeaseKind; name?: string; after?: { id: string } | null; limit: number },
): Promise<Array<{ id: string; body: string }>> {
  // One more than asked comes back when another page follows.
  return orgEventsStub(env, orgId).listLeases(orgId, { state: filter.state, kind: filter.kind, name: filter.name, before: filter.after?.id ?? null, limit: filter.limit });
}
