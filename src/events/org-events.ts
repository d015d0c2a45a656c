/** An org's event as its stream and its pages answer it: a lease's event, with the org log's own id. */
import { z } from "@hono/zod-openapi";
import { LeaseEventSchema } from "./lease-events";
import { sseFrame } from "./sse";

const ORG_ID = z.number().int().describe("the event's id in the org's log: pages and streams resume after it");

/** A lease's event in the org's log: the lease's own event, with the log's id and the lease's. */
const OrgLeaseEvents = LeaseEventSchema.options.map((o) =>
  o.extend({
    id: ORG_ID,
    lease_id: z.string().describe("the lease the event belongs to"),
    seq: z.number().int().describe("the event's id within its lease's own log"),
  }),
);

/** The org's own event: a webhook endpoint was disabled (by a 410, or after failing too long or too often). */
const WebhookDisabledEvent = z.object({
  id: ORG_ID,
  lease_id: z.null(),
  seq: z.null(),
  at: z.string(),
  type: z.literal("webhook_disabled"),
  from: z.null(),
  to: z.null(),
  reason: z.string(),
  detail: z.strictObject({
    webhook_id: z.string(),
    url: z.string(),
    reason: z.string(),
    consecutive_failures: z.number().int().optional().describe("failed attempts in a row, this one included"),
  }),
});

export const OrgEventSchema = z
  .union([WebhookDisabledEvent, ...OrgLeaseEvents])
  .openapi("OrgEvent", { description: "A lease's event (as LeaseEvent, with the org log's id and the lease's id), or the org's own `webhook_disabled`" });
/**
 * An org event as the org's object stores and answers it. The document types each event's detail
 * (OrgEventSchema); the object keeps them as they came, and every answer the tests receive is
 * checked against the document.
 */
export interface OrgEvent {
  id: number;
  lease_id: string | null;
  seq: number | null;
  at: string;
  type: string;
  from: string | null;
  to: string | null;
  reason: string | null;
  detail: Record<string, unknown>;
}

/** How many of the newest events an org's log keeps; a reader resuming before them gets 410. */
export const ORG_LOG_RETAINED = 1000;

export const orgEventFrame = (e: OrgEvent) => sseFrame({ id: e.id }, JSON.stringify(e));
