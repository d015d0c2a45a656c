/**
 * `POST/GET /v1/auth/issuers`, `DELETE /v1/auth/issuers/:id`: trusted JWT issuers (admin).
 * A pair `(iss, aud)` is held by one org across the installation (src/auth/issuers-repo.ts,
 * docs/design.md).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { deleteIssuer, listIssuers, registerIssuer } from "../../src/auth/issuers-repo";
import { database } from "../../src/db";
import type { IssuerRow } from "../../src/db/schema";
import { notFound } from "../../src/errors";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";
import { sameShape } from "../../src/same-shape";

const IssuerSchema = z
  .object({ id: z.string(), jwks_url: z.string(), iss: z.string(), aud: z.string(), created_at: z.string() })
  .openapi("Issuer");

const CreateIssuerSchema = z
  .strictObject({
    jwks_url: z
      .url({ protocol: /^https$/ })
      .max(2048)
      .describe("where the issuer publishes its signing keys (https, port 443, on a public address)"),
    iss: z.string().min(1).max(512),
    aud: z
      .string()
      .min(1)
      .max(512)
      .describe("the audience your IdP puts in lessor's tokens; (iss, aud) is held by one org, so name your org in it"),
  })
  .openapi("CreateIssuer");

const render = (r: IssuerRow) => ({
  id: r.id,
  jwks_url: r.jwks_url,
  iss: r.iss,
  aud: r.aud,
  created_at: new Date(r.created_at).toISOString(),
});

sameShape<z.infer<typeof IssuerSchema>, ReturnType<typeof render>>(true);

export const issuerRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/auth/issuers",
      summary: "Trust JWTs from an issuer (its JWKS URL, iss and aud) as this org",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: jsonBody(CreateIssuerSchema),
      responses: {
        201: jsonResponse(IssuerSchema, "The trusted issuer"),
        409: errorResponse("issuer_exists: this org already trusts that iss and aud (details.id); issuer_taken: another org registered them; limit_reached: the org trusts as many issuers as it may", ["issuer_exists", "issuer_taken", "limit_reached"]),
        ...COMMON_ERRORS,
        400: errorResponse(
          `${COMMON_ERRORS[400].description}; invalid_jwks_url: lessor may not fetch the jwks_url (details.reason)`,
        ),
      },
    }),
    async (c) => {
      const row = await registerIssuer(c.env, database(c.env.DB), c.var.principal.org_id, c.req.valid("json"), c.var.now);
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
      const rows = await listIssuers(database(c.env.DB), c.var.principal.org_id, { after: decodeCursor(cursor), limit });
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
      const row = await deleteIssuer(database(c.env.DB), c.var.principal.org_id, id);
      if (!row) throw notFound("issuer", id);
      return c.json(render(row), 200);
    },
  );
