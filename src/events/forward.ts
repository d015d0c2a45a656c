/** How a lease's object hands its new events to its org's fan-out object (src/events/org-object.ts). */
import type { Env } from "../env";
import { errorText } from "../errors";
import type { LeaseEvent } from "../lease/object";
import type { IndexRowOut } from "./lease-stream";

export const orgEventsStub = (env: Pick<Env, "ORG_EVENTS">, orgId: string) => env.ORG_EVENTS.get(env.ORG_EVENTS.idFromName(orgId));

/**
 * Makes `call` (a word to an org's object, or a message to a queue) at most twice, logging each
 * failure as `what`; whether it was taken. For a word whose loss the caller has a fallback for.
 */
export async function tellTwice(what: string, fields: Record<string, unknown>, call: () => Promise<unknown>): Promise<boolean> {
  for (let i = 0; i < 2; i++) {
    try {
      await call();
      return true;
    } catch (e) {
      console.error(JSON.stringify({ msg: what, ...fields, try: i + 1, error: errorText(e) }));
    }
  }
  return false;
}

/**
 * Appends `events` of one lease to its org's log, which drops the ones it already holds, and
 * writes its row of the org's lease index when `index` is given: one call.
 */
export async function forwardLeaseEvents(env: Pick<Env, "ORG_EVENTS">, orgId: string, leaseId: string, events: LeaseEvent[], index: IndexRowOut | null = null): Promise<void> {
  await orgEventsStub(env, orgId).sync(orgId, leaseId, events, index);
}
