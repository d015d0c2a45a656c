/** How a lease's object hands its new events to its org's fan-out object (src/events/org-object.ts). */
import type { Env } from "../env";
import type { LeaseEvent } from "../lease/object";
import type { IndexRowOut } from "./lease-stream";

export const orgEventsStub = (env: Pick<Env, "ORG_EVENTS">, orgId: string) => env.ORG_EVENTS.get(env.ORG_EVENTS.idFromName(orgId));

/**
 * Appends `events` of one lease to its org's log, which drops the ones it already holds, and
 * writes its row of the org's lease index when `index` is given: one call.
 */
export async function forwardLeaseEvents(env: Pick<Env, "ORG_EVENTS">, orgId: string, leaseId: string, events: LeaseEvent[], index: IndexRowOut | null = null): Promise<void> {
  await orgEventsStub(env, orgId).sync(orgId, leaseId, events, index);
}
