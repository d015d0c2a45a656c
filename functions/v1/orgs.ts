/** `POST /v1/orgs`: an org and its first admin key, for the installation's bootstrap token. */
import { createRoute, z } from "@hono/zod-openapi";
import { KeySchema } from "../../src/auth/key-schema";
import { renderKey } from "../../src/auth/keys";
import { database } from "../../src/db";
import { OrgSchema } from "../../src/orgs/org-schema";
import { createOrg, renderOrg } from "../../src/orgs/orgs";
import { BEARER, COMMON_ERRORS, jsonBody, jsonResponse, router } from "../context";
import { requireBootstrapToken } from "../middleware";

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
    const { org, key } = await createOrg(database(c.env.DB), c.env.DB, name, c.var.now);
    return c.json(
      { org: renderOrg(org), key: { ...renderKey(key.row), secret: key.secret } },
      201,
    );
  },
);
