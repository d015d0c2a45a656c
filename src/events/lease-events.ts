/**
 * A lease's event log as clients read it: pages forward from an event id, and the frames of its
 * live stream. The log itself lives in the lease's Durable Object (src/lease/object.ts); an
 * event's id is its `seq` there, which only grows.
 */
import { z } from "@hono/zod-openapi";
import { LeaseEventSchema } from "../lease/event-schema";
import { sseFrame } from "./sse";

/** One schema per event type, with the detail each carries (src/lease/event-schema.ts). */
export { LeaseEventSchema };
export type LeaseEventBody = z.infer<typeof LeaseEventSchema>;

/** The most events one page holds (docs/design.md: `?limit=` at most 200). */
export const MAX_EVENT_PAGE = 200;

export interface LeaseEventPage<E> {
  data: E[];
  /** The id to ask `after=` for the next page; null when this page reached the end of the log. */
  next_after: number | null;
  /** Whether the lease is released: its log is then complete. */
  released: boolean;
}

/** The stream's last frame: the lease is released, nothing more will come, and the stream ends. */
export function leaseEndFrame(leaseId: string): string {
  return sseFrame({ event: "end" }, JSON.stringify({ lease_id: leaseId, state: "released" }));
}

export const leaseEventFrame = (e: { seq: number }) => sseFrame({ id: e.seq }, JSON.stringify(e));
