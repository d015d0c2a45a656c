/** `GET /v1/org`: the caller's own org; `GET/PUT /v1/org/settings`: its settings (PUT: admin scope). */
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../src/db";
import { ApiError } from "../../src/errors";
import { OrgSchema } from "../../src/orgs/org-schema";
import { getOrgIdentity, renderOrg } from "../../src/orgs/orgs";
import { OrgSettingsSchema, OrgSettingsUpdateSchema, orgSettings, updateOrgSettings } from "../../src/orgs/settings";
import { BEARER, COMMON_ERRORS, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

export const orgRoutes = router()
  .openapi(
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
      const org = orgOrGone(await getOrgIdentity(database(c.env.DB), p.org_id, c.var.now));
      return c.json({ ...renderOrg(org), caller: { kind: p.kind, scope: p.scope, subject: p.subject } }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/org/settings",
      summary: "The org's settings",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      responses: { 200: jsonResponse(OrgSettingsSchema, "The settings"), ...COMMON_ERRORS },
    }),
    async (c) => c.json(orgOrGone(await orgSettings(database(c.env.DB), c.var.principal.org_id)), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/org/settings",
      summary: "Change the org's settings: the fields given are set, the others kept",
      description: "`require_image_digest`: a lease (and a validate) whose image is not pinned by `@sha256:`, or that names none, is refused with 409 image_not_pinned before anything is rented.",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: jsonBody(OrgSettingsUpdateSchema),
      responses: { 200: jsonResponse(OrgSettingsSchema, "The settings now"), ...COMMON_ERRORS },
    }),
    async (c) => c.json(orgOrGone(await updateOrgSettings(database(c.env.DB), c.var.principal.org_id, c.req.valid("json"))), 200),
  );

/** What was read of the caller's org; its key outlived it when there is none. */
function orgOrGone<T>(found: T | null | undefined): T {
  if (!found) throw new ApiError(401, "unauthenticated", "the credential's org no longer exists");
  return found;
}
