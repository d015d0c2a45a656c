/**
 * `POST/GET /v1/auth/issuers`, `DELETE /v1/auth/issuers/:id`: trusted JWT issuers (admin).
 *
 * Issue 10, item 5: a token names its org by its `(iss, aud)`, so a pair is held by one org across
 * the installation (the unique index of migrations/0006_issuer_pairs.sql): registering a pair
 * another org holds is 409 `issuer_taken`, and no registration can change whether another org's
 * tokens verify (a token's pair reaches the one org that holds it; src/auth/jwt.ts).
 *
 * The other design, lessor generating each issuer's audience, was not taken: it makes
 * every registration two steps (register, then configure the IdP with lessor's value), cannot be
 * used with IdPs whose audience is fixed (an OAuth client id), and would invalidate every
 * registration made before it, where this one keeps them all but the duplicates migration 0006
 * settles. What it leaves open: an org may register a pair first that another org wanted later
 * (first come, first served, answered 409 to the second, never a lock-out of tokens that worked);
 * the README asks admins to name their org in the audience, which makes that moot.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { insertIssuerWithinLimit, limitReached } from "../../src/auth/limits";
import { database, type Db } from "../../src/db";
import type { IssuerRow } from "../../src/db/schema";
import { ApiError, notFound } from "../../src/errors";
import { newId } from "../../src/ids";
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
      .describe("where the issuer publishes its signing keys (https)"),
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

/**
 * 409 when some registration holds the pair: `issuer_exists` (with its id) when it is this org's,
 * `issuer_taken` when another's (whose id is not named: guarantee 8).
 */
async function refuseHeldPair(db: Db, orgId: string, pair: { iss: string; aud: string }) {
  const held = await db.selectFrom("issuers").select(["id", "org_id"]).where("iss", "=", pair.iss).where("aud", "=", pair.aud).executeTakeFirst();
  if (!held) return;
  if (held.org_id === orgId) throw new ApiError(409, "issuer_exists", "this org already trusts that iss and aud", { id: held.id });
  throw new ApiError(409, "issuer_taken", "another org has registered that iss and aud; a token must name one org", { iss: pair.iss, aud: pair.aud });
}

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
      responses: { 201: jsonResponse(IssuerSchema, "The trusted issuer"), 409: errorResponse("issuer_exists: this org already trusts that iss and aud (details.id); issuer_taken: another org registered them; limit_reached: the org trusts as many issuers as it may", ["issuer_exists", "issuer_taken", "limit_reached"]), ...COMMON_ERRORS },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      await refuseHeldPair(db, orgId, body);
      const row: IssuerRow = { id: newId("iss", c.var.now), org_id: orgId, ...body, created_at: c.var.now };
      const outcome = await insertIssuerWithinLimit(c.env.DB, row);
      if (outcome === "limit") throw limitReached("issuers");
      if (outcome === "pair_held") {
        // Another registration of the pair landed between the check and the insert.
        await refuseHeldPair(db, orgId, body);
        throw new ApiError(409, "issuer_taken", "that iss and aud are already registered", { iss: body.iss, aud: body.aud });
      }
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
