/** `GET /v1/events`: every event of the caller's org, a page after an event id or a live stream. */
import { createRoute, z } from "@hono/zod-openapi";
import { eventAnswers, EventHeaders, EventQuery, eventsGone, resumeAfter, streamResponse, wantsStream } from "../../src/events/follow";
import { orgEventsStub } from "../../src/events/forward";
import { MAX_EVENT_PAGE } from "../../src/events/lease-events";
import { OrgEventSchema, type OrgEvent } from "../../src/events/org-events";
import type { OrgEventsAnswer } from "../../src/events/org-object";
import { BEARER, COMMON_ERRORS, errorResponse, router } from "../context";
import { requireScope } from "../middleware";

export const eventRoutes = router().openapi(
  createRoute({
    method: "get",
    path: "/events",
    summary: "Every event of the org's leases, in the order the org's log took them: a page after an event id, or a live stream (`?follow=1`)",
    security: BEARER,
    middleware: [requireScope("read")] as const,
    request: { query: z.object(EventQuery), headers: EventHeaders },
    responses: {
      200: eventAnswers(
        z.object({ data: z.array(OrgEventSchema), next_after: z.number().int().nullable() }),
        "A page of events (`next_after`: ask `after=` it for the next; null at the end), or the stream",
      ),
      ...COMMON_ERRORS,
      400: errorResponse("invalid_request: the query does not match the schema; invalid_last_event_id: Last-Event-ID is not an event id"),
      410: errorResponse("events_gone: events after this id are no longer kept (details.oldest_kept): list the current state, then follow from the newest id"),
    },
  }),
  async (c) => {
    const { after, limit = MAX_EVENT_PAGE, follow } = c.req.valid("query");
    const headers = c.req.valid("header");
    const from = resumeAfter(after, headers["last-event-id"]);
    const stub = orgEventsStub(c.env, c.var.principal.org_id);
    if (wantsStream(follow, headers.accept)) {
      const answer = (await stub.follow(from)) as OrgEventsAnswer<ReadableStream<Uint8Array>>;
      if (!answer.ok) throw eventsGone(answer.oldest);
      return streamResponse(answer.value);
    }
    const answer = (await stub.page(from, limit)) as OrgEventsAnswer<{ data: OrgEvent[]; next_after: number | null }>;
    if (!answer.ok) throw eventsGone(answer.oldest);
    return c.json(answer.value, 200);
  },
);
