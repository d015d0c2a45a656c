/** An org's event as its stream and its pages answer it: a lease's event, with the org log's own id. */
import { z } from "@hono/zod-openapi";
import { LeaseEventSchema } from "./lease-events";
import { eventFrame } from "./sse";

export const OrgEventSchema = LeaseEventSchema.extend({
  id: z.number().int().describe("the event's id in the org's log: pages and streams resume after it"),
  lease_id: z.string().nullable().describe("the lease the event belongs to; null for an event of the org itself (a webhook endpoint disabled)"),
  seq: z.number().int().nullable().describe("the event's id within its lease's own log"),
}).openapi("OrgEvent");
export type OrgEvent = z.infer<typeof OrgEventSchema>;

/** How many of the newest events an org's log keeps; a reader resuming before them gets 410. */
export const ORG_LOG_RETAINED = 1000;

export const orgEventFrame = (e: OrgEvent) => eventFrame(e.id, e);
