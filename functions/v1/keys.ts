/** `POST/GET /v1/keys`, `DELETE /v1/keys/:id`: an org's API keys (admin scope). */
import { createRoute, z } from "@hono/zod-openapi";
import { KeySchema } from "../../src/auth/key-schema";
import { renderKey, revokeKey } from "../../src/auth/keys";
import { createKey, listKeys } from "../../src/auth/keys-repo";
import { MAX_API_KEY_ROWS, MAX_LIVE_API_KEYS } from "../../src/auth/limits";
import { SCOPES } from "../../src/auth/principal";
import { database } from "../../src/db";
import { notFound } from "../../src/errors";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

const CreateKeySchema = z
  .strictObject({ name: z.string().trim().min(1).max(200), scope: z.enum(SCOPES) })
  .openapi("CreateApiKey");

export const keyRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/keys",
      summary: "Create an API key; its secret is shown in this answer only",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: jsonBody(CreateKeySchema),
      responses: {
        201: jsonResponse(KeySchema.extend({ secret: z.string() }), "The key, with its secret"),
        409: errorResponse(`limit_reached: ${MAX_LIVE_API_KEYS} live keys, or ${MAX_API_KEY_ROWS} with the revoked ones (details.limit)`, ["limit_reached"]),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { name, scope } = c.req.valid("json");
      const key = await createKey(c.env.DB, c.var.principal.org_id, name, scope, c.var.now);
      return c.json({ ...renderKey(key.row), secret: key.secret }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/keys",
      summary: "List the org's API keys (never their secrets)",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { query: z.object(PageQuery) },
      responses: {
        200: jsonResponse(z.object({ data: z.array(KeySchema), next_cursor: z.string().nullable() }), "A page of keys"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const rows = await listKeys(database(c.env.DB), c.var.principal.org_id, { after: decodeCursor(cursor), limit });
      return c.json(pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), renderKey), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/keys/{id}",
      summary: "Revoke an API key; it fails on its next request",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: IdParam("key") },
      responses: { 200: jsonResponse(KeySchema, "The revoked key"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      // Through the key's object, which remembers the key: see src/auth/key-object.ts.
      const row = await revokeKey(c.env, c.var.principal.org_id, id, c.var.now);
      if (!row) throw notFound("key", id);
      return c.json(renderKey(row), 200);
    },
  );
