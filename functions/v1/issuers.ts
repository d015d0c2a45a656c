/** `POST/GET /v1/auth/issuers`, `DELETE /v1/auth/issuers/:id`: trusted JWT issuers (admin). */
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../src/db";
import type { IssuerRow } from "../../src/db/schema";
import { ApiError, notFound } from "../../src/errors";
import { newId } from "../../src/ids";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, IdParam, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

const IssuerSchema = z
  .object({ id: z.string(), jwks_url: z.string(), iss: z.string(), aud: z.string(), created_at: z.string() })
  .openapi("Issuer");

const CreateIssuerSchema = z
  .strictObject({
    jwks_url: z
      .url({ protocol: /^https$/ })
      .max(2048)
      .describe("where the issuer publishes its signing keys (https)"),
    iss: z.string().min(1).max(512),
    aud: z.string().min(1).max(512),
  })
  .openapi("CreateIssuer");

const render = (r: IssuerRow) => ({
  id: r.id,
  jwks_url: r.jwks_url,
  iss: r.iss,
  aud: r.aud,
  created_at: new Date(r.created_at).toISOString(),
});

export const issuerRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/auth/issuers",
      summary: "Trust JWTs from an issuer (its JWKS URL, iss and aud) as this org",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: jsonBody(CreateIssuerSchema),
      responses: { 201: jsonResponse(IssuerSchema, "The trusted issuer"), 409: COMMON_ERRORS[400], ...COMMON_ERRORS },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      const dup = await db
        .selectFrom("issuers")
        .select("id")
        .where("org_id", "=", orgId)
        .where("iss", "=", body.iss)
        .where("aud", "=", body.aud)
        .executeTakeFirst();
      if (dup) throw new ApiError(409, "issuer_exists", "this org already trusts that iss and aud", { id: dup.id });
      const row: IssuerRow = { id: newId("iss", c.var.now), org_id: orgId, ...body, created_at: c.var.now };
      await db.insertInto("issuers").values(row).execute();
      return c.json(render(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/auth/issuers",
      summary: "List trusted issuers",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { query: z.object(PageQuery) },
      responses: {
        200: jsonResponse(z.object({ data: z.array(IssuerSchema), next_cursor: z.string().nullable() }), "A page of issuers"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const after = decodeCursor(cursor);
      let q = database(c.env.DB).selectFrom("issuers").selectAll().where("org_id", "=", c.var.principal.org_id);
      if (after) q = q.where("id", ">", after.id);
      const rows = await q.orderBy("id").limit(limit + 1).execute();
      return c.json(pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), render), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/auth/issuers/{id}",
      summary: "Stop trusting an issuer; its tokens fail on their next request",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: IdParam("iss") },
      responses: { 200: jsonResponse(IssuerSchema, "The issuer, no longer trusted"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      const row = await db.selectFrom("issuers").selectAll().where("id", "=", id).where("org_id", "=", orgId).executeTakeFirst();
      if (!row) throw notFound("issuer", id);
      await db.deleteFrom("issuers").where("id", "=", id).where("org_id", "=", orgId).execute();
      return c.json(render(row), 200);
    },
  );
