/**
 * What the event routes share: where a reader resumes (`?after=` or the `Last-Event-ID` a
 * reconnecting EventSource sends), whether it asked for a stream, and the stream's answer.
 */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../errors";
import { MAX_EVENT_PAGE } from "./lease-events";
import { SSE_HEADERS } from "./sse";

const EVENT_ID = /^(0|[1-9][0-9]{0,14})$/;

export const EventQuery = {
  after: z
    .string()
    .regex(EVENT_ID, "an event id: a non-negative integer")
    .optional()
    .openapi({ description: "answer only events after this event id", example: "12" }),
  limit: z.coerce.number().int().min(1).max(MAX_EVENT_PAGE).optional().openapi({ description: `a page holds at most this many events (default and most: ${MAX_EVENT_PAGE})` }),
  follow: z
    .enum(["0", "1"])
    .optional()
    .openapi({ description: "1: answer a Server-Sent Events stream instead of a page (so does `Accept: text/event-stream`)" }),
};

export const EventHeaders = z.object({
  "last-event-id": z.string().max(64).optional().openapi({ description: "where a reconnecting stream resumes; wins over `after`" }),
  accept: z.string().max(1024).optional(),
});

/** The event id to resume after: `Last-Event-ID` first (a reconnect), then `after`, else 0. */
export function resumeAfter(after: string | undefined, lastEventId: string | undefined): number {
  if (lastEventId !== undefined && lastEventId.trim() !== "") {
    const id = lastEventId.trim();
    if (!EVENT_ID.test(id)) throw new ApiError(400, "invalid_last_event_id", "Last-Event-ID must be an event id this stream sent (a non-negative integer)", { field: "last-event-id" });
    return Number(id);
  }
  return after === undefined ? 0 : Number(after);
}

/** Whether the reader asked for a stream: `?follow=1` or an Accept naming text/event-stream. */
export function wantsStream(follow: string | undefined, accept: string | undefined): boolean {
  if (follow !== undefined) return follow === "1";
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? "");
}

export const streamResponse = (stream: ReadableStream<Uint8Array>) => new Response(stream, { status: 200, headers: SSE_HEADERS });

export const eventsGone = (oldest: number) =>
  new ApiError(
    410,
    "events_gone",
    "the events after this id are no longer kept: list the current state again, then follow from the newest event id",
    { oldest_kept: oldest },
  );

/** The two answers an event route gives with 200: a page, or a stream. */
export function eventAnswers<T extends z.ZodType>(page: T, description: string) {
  return {
    description,
    content: {
      "application/json": { schema: page },
      "text/event-stream": { schema: z.string().openapi({ description: "Server-Sent Events: `id:` is the event id, `data:` the event as JSON; `: keepalive` comments every 15 s" }) },
    },
  };
}
