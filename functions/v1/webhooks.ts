/**
 * `POST/GET /v1/webhooks`, `GET/PATCH/DELETE /v1/webhooks/:id`, `POST /v1/webhooks/:id/rotate-secret`,
 * `GET /v1/webhooks/:id/deliveries`, `POST /v1/webhooks/:id/deliveries/:delivery_id/retry`.
 * Rules in src/webhooks/ (docs/events.md); reads need `read`, changes `admin`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../src/db";
import { conflict, notFound } from "../../src/errors";
import { orgEventsStub } from "../../src/events/forward";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { DeliverySchema, type DeliveryView } from "../../src/webhooks/deliveries";
import {
  CreateWebhookSchema,
  createWebhook,
  removeWebhook,
  renderWebhook,
  rotateSecret,
  UpdateWebhookSchema,
  updateWebhook,
  WebhookSchema,
  WebhookWithSecretSchema,
} from "../../src/webhooks/endpoints";
import { endpointOf, listEndpoints } from "../../src/webhooks/repo";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

const URL_ERRORS = {
  ...COMMON_ERRORS,
  400: errorResponse(
    "invalid_request: the body does not match the schema; invalid_webhook_url: the url is not https or its host is a private, loopback, link-local or reserved address (details.reason)",
  ),
  503: errorResponse("provider_keys_disabled: the installation has no LESSOR_MASTER_KEY to encrypt signing secrets with"),
} as const;

const DeliveryParams = IdParam("wh").extend({
  delivery_id: z.string().min(1).max(64).openapi({ param: { name: "delivery_id", in: "path" }, example: "dlv_01jd0000000000000000000000" }),
});

export const webhookRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/webhooks",
      summary: "Add a webhook endpoint; its signing secret is shown in this answer only",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: jsonBody(CreateWebhookSchema),
      responses: {
        201: jsonResponse(WebhookWithSecretSchema, "The endpoint, with its secret"),
        409: errorResponse("limit_reached: the org holds 20 endpoints already"),
        ...URL_ERRORS,
      },
    }),
    async (c) => c.json(await createWebhook(c.env, c.var.principal.org_id, c.req.valid("json"), c.var.now), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/webhooks",
      summary: "List the org's webhook endpoints (never their secrets)",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { query: z.object(PageQuery) },
      responses: {
        200: jsonResponse(z.object({ data: z.array(WebhookSchema), next_cursor: z.string().nullable() }), "A page of endpoints"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const rows = await listEndpoints(database(c.env.DB), c.var.principal.org_id, decodeCursor(cursor)?.id ?? null, limit + 1);
      return c.json(pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), (r) => renderWebhook(r, c.var.now)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/webhooks/{id}",
      summary: "A webhook endpoint",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("wh") },
      responses: { 200: jsonResponse(WebhookSchema, "The endpoint"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await endpointOf(database(c.env.DB), c.var.principal.org_id, id);
      if (!row) throw notFound("webhook", id);
      return c.json(renderWebhook(row, c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/webhooks/{id}",
      summary: "Change an endpoint's url or event types, or enable a disabled one",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: IdParam("wh"), ...jsonBody(UpdateWebhookSchema) },
      responses: { 200: jsonResponse(WebhookSchema, "The endpoint"), ...URL_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await updateWebhook(c.env, database(c.env.DB), c.var.principal.org_id, id, c.req.valid("json"), c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/webhooks/{id}",
      summary: "Remove an endpoint; what it had pending is not sent",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: IdParam("wh") },
      responses: { 200: jsonResponse(WebhookSchema, "The removed endpoint"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const org = c.var.principal.org_id;
      return c.json(await removeWebhook(c.env, database(c.env.DB), org, id, c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/webhooks/{id}/rotate-secret",
      summary: "A new signing secret, shown in this answer only; the previous one also signs for 24 h",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: IdParam("wh") },
      responses: {
        200: jsonResponse(WebhookWithSecretSchema, "The endpoint, with its new secret"),
        ...COMMON_ERRORS,
        503: URL_ERRORS[503],
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await rotateSecret(c.env, database(c.env.DB), c.var.principal.org_id, id, c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/webhooks/{id}/deliveries",
      summary: "An endpoint's deliveries, newest first: attempts, status, latency, next try (kept 7 days)",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("wh"), query: z.object(PageQuery) },
      responses: {
        200: jsonResponse(z.object({ data: z.array(DeliverySchema), next_cursor: z.string().nullable() }), "A page of deliveries"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const org = c.var.principal.org_id;
      if (!(await endpointOf(database(c.env.DB), org, id))) throw notFound("webhook", id);
      const rows = (await orgEventsStub(c.env, org).deliveries(id, decodeCursor(cursor)?.id ?? null, limit + 1)) as DeliveryView[];
      return c.json(pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), (r) => r), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/webhooks/{id}/deliveries/{delivery_id}/retry",
      summary: "Send a delivery again now, whatever became of it",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: DeliveryParams },
      responses: {
        202: jsonResponse(DeliverySchema, "The delivery, due now"),
        409: errorResponse("webhook_disabled: enable the endpoint first (PATCH with enabled: true)"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { id, delivery_id } = c.req.valid("param");
      const org = c.var.principal.org_id;
      const ep = await endpointOf(database(c.env.DB), org, id);
      if (!ep) throw notFound("webhook", id);
      if (ep.disabled_at !== null) throw conflict("webhook_disabled", `webhook ${id} is disabled (${ep.disabled_reason}); enable it first`, { reason: ep.disabled_reason });
      const delivery = (await orgEventsStub(c.env, org).retryDelivery(id, delivery_id)) as DeliveryView | null;
      if (!delivery) throw notFound("delivery", delivery_id);
      return c.json(delivery, 202);
    },
  );
