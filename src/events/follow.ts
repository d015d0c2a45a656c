/**
 * What every stream route shares (the lease's and the org's events, the lease's log): where a
 * reader resumes (`?after=` or the `Last-Event-ID` a reconnecting EventSource sends), whether it
 * asked for a stream, and the stream's answer; and the one handler of the two event routes.
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
    .openapi({ description: "1: answer a Server-Sent Events stream (so does `Accept: text/event-stream` without `follow`); 0: never" }),
};

export const EventHeaders = z.object({
  "last-event-id": z.string().max(64).optional().openapi({ description: "where a reconnecting stream resumes; wins over `after`" }),
  accept: z.string().max(1024).optional(),
});

/** The event id to resume after: `Last-Event-ID` first (a reconnect), then `after`, else `start`. */
export function resumeAfter(after: string | undefined, lastEventId: string | undefined, start = 0): number {
  if (lastEventId !== undefined && lastEventId.trim() !== "") {
    const id = lastEventId.trim();
    if (!EVENT_ID.test(id)) throw new ApiError(400, "invalid_last_event_id", "Last-Event-ID must be an event id this stream sent (a non-negative integer)", { field: "last-event-id" });
    return Number(id);
  }
  return after === undefined ? start : Number(after);
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
      "text/event-stream": { schema: z.string().openapi({ description: "Server-Sent Events: `retry:` first, then `id:` the event id and `data:` the event as JSON; a `: keepalive` comment every 15 s" }) },
    },
  };
}

/** What an event log answers: the value, or gone when events after the id asked are no longer kept. */
export type EventsAnswer<T> = { ok: true; value: T } | { ok: false; gone: true; oldest: number };

/** One event log as its route reads it (a log the caller may not read throws its 404). */
export interface EventLog<P> {
  follow(after: number): Promise<EventsAnswer<ReadableStream<Uint8Array>>>;
  page(after: number, limit: number): Promise<EventsAnswer<P>>;
}

/** The answer of an event route: a page or a stream of `log`, from where the reader resumes. */
export async function answerEvents<P>(
  query: { after?: string; limit?: number; follow?: "0" | "1" },
  headers: { "last-event-id"?: string; accept?: string },
  log: EventLog<P>,
): Promise<Response> {
  const from = resumeAfter(query.after, headers["last-event-id"]);
  const kept = <T>(answer: EventsAnswer<T>): T => {
    if (!answer.ok) throw eventsGone(answer.oldest);
    return answer.value;
  };
  if (wantsStream(query.follow, headers.accept)) return streamResponse(kept(await log.follow(from)));
  return Response.json(kept(await log.page(from, query.limit ?? MAX_EVENT_PAGE)));
}
