/** `POST /v1/orgs` (bootstrap token) and `GET /v1/org`. */
import { createRoute, z } from "@hono/zod-openapi";
import { KeySchema } from "../../src/auth/key-schema";
import { mintKey, renderKey } from "../../src/auth/keys";
import { batch, database } from "../../src/db";
import { ApiError } from "../../src/errors";
import { newId } from "../../src/ids";
import { BEARER, COMMON_ERRORS, jsonBody, jsonResponse, router } from "../context";
import { requireBootstrapToken, requireScope } from "../middleware";
import { sameShape } from "../../src/same-shape";

const OrgSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string() })
  .openapi("Org");

const CreateOrgSchema = z.strictObject({ name: z.string().trim().min(1).max(200) }).openapi("CreateOrg");

const CreatedOrgSchema = z
  .object({
    org: OrgSchema,
    key: KeySchema.extend({ secret: z.string().describe("shown once; store it now") }),
  })
  .openapi("CreatedOrg");

/** Routes authenticated by the installation's bootstrap token, not by an org credential. */
export const bootstrapRoutes = router().openapi(
  createRoute({
    method: "post",
    path: "/orgs",
    summary: "Create an org and its first admin key (bootstrap token only)",
    security: BEARER,
    middleware: [requireBootstrapToken] as const,
    request: jsonBody(CreateOrgSchema),
    responses: { 201: jsonResponse(CreatedOrgSchema, "The org and its admin key"), ...COMMON_ERRORS },
  }),
  async (c) => {
    const { name } = c.req.valid("json");
    const now = c.var.now;
    const org = { id: newId("org", now), name, created_at: now };
    const key = await mintKey(org.id, "admin", "admin", now);
    const db = database(c.env.DB);
    await batch(c.env.DB, [db.insertInto("orgs").values(org), db.insertInto("api_keys").values(key.row)]);
    return c.json(
      { org: renderOrg(org), key: { ...renderKey(key.row), secret: key.secret } },
      201,
    );
  },
);

export const orgRoutes = router().openapi(
  createRoute({
    method: "get",
    path: "/org",
    summary: "The caller's org and how the caller is authenticated",
    security: BEARER,
    // A JWT without a lessor scope authenticates but "may call nothing" (src/auth/jwt.ts); without
    // this check it could still read its org here.
    middleware: [requireScope("read")] as const,
    responses: {
      200: jsonResponse(
        OrgSchema.extend({
          caller: z.object({ kind: z.enum(["api_key", "jwt"]), scope: z.string().nullable(), subject: z.string() }),
        }),
        "The org",
      ),
      ...COMMON_ERRORS,
    },
  }),
  async (c) => {
    const p = c.var.principal;
    const org = await database(c.env.DB).selectFrom("orgs").selectAll().where("id", "=", p.org_id).executeTakeFirst();
    if (!org) throw new ApiError(401, "unauthenticated", "the credential's org no longer exists");
    return c.json({ ...renderOrg(org), caller: { kind: p.kind, scope: p.scope, subject: p.subject } }, 200);
  },
);

sameShape<z.infer<typeof OrgSchema>, ReturnType<typeof renderOrg>>(true);

function renderOrg(o: { id: string; name: string; created_at: number }) {
  return { id: o.id, name: o.name, created_at: new Date(o.created_at).toISOString() };
}
