/** How a lease's object hands its new events to its org's fan-out object (src/events/org-object.ts). */
import type { Env } from "../env";
import type { LeaseEvent } from "../lease/object";

export const orgEventsStub = (env: Pick<Env, "ORG_EVENTS">, orgId: string) => env.ORG_EVENTS.get(env.ORG_EVENTS.idFromName(orgId));

/** Appends `events` of one lease to its org's log; the log drops the ones it already holds. */
export async function forwardLeaseEvents(env: Pick<Env, "ORG_EVENTS">, orgId: string, leaseId: string, events: LeaseEvent[]): Promise<void> {
  await orgEventsStub(env, orgId).append(orgId, leaseId, events);
}
