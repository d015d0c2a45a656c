/** `GET /v1/events`: every event of the caller's org, a page after an event id or a live stream. */
import { createRoute, z } from "@hono/zod-openapi";
import { answerEvents, eventAnswers, EventHeaders, EventQuery, type EventsAnswer } from "../../src/events/follow";
import { orgEventsStub } from "../../src/events/forward";
import { OrgEventSchema, type OrgEvent } from "../../src/events/org-events";
import { slotted, streamClaim, type SlotRefusal } from "../../src/auth/stream-slots";
import { BEARER, COMMON_ERRORS, errorResponse, router, STREAM_400, STREAM_429 } from "../context";
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
      ...STREAM_400,
      ...STREAM_429,
      410: errorResponse("events_gone: events after this id are no longer kept (details.oldest_kept): list the current state, then follow from the newest id"),
    },
  }),
  async (c) => {
    const stub = orgEventsStub(c.env, c.var.principal.org_id);
    return answerEvents(
      c.req.valid("query"),
      c.req.valid("header"),
      {
        follow: async (after) => slotted((await stub.follow(after, streamClaim(c.env, c.var.principal))) as EventsAnswer<ReadableStream<Uint8Array>> | SlotRefusal),
        page: async (after, limit) => (await stub.page(after, limit)) as EventsAnswer<{ data: OrgEvent[]; next_after: number | null }>,
      },
    );
  },
);
