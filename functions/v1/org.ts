/** `GET /v1/org`: the caller's own org. */
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../src/db";
import { ApiError } from "../../src/errors";
import { OrgSchema } from "../../src/orgs/org-schema";
import { getOrg, renderOrg } from "../../src/orgs/orgs";
import { BEARER, COMMON_ERRORS, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

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
    const org = await getOrg(database(c.env.DB), p.org_id);
    if (!org) throw new ApiError(401, "unauthenticated", "the credential's org no longer exists");
    return c.json({ ...renderOrg(org), caller: { kind: p.kind, scope: p.scope, subject: p.subject } }, 200);
  },
);
