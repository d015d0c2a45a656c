/**
 * `PUT/GET/DELETE /v1/deployments/:name`, `GET /v1/deployments`, `POST /v1/deployments/:name/rotate-key`,
 * `GET /v1/deployments/:name/env`. Rules in src/deployments/ (docs/deployments.md); reads need
 * `read` (the api_key is shown to `write` and above), changes `write`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { MAX_DEPLOYMENTS } from "../../src/auth/limits";
import { hasScope } from "../../src/auth/principal";
import { NO_PLACEMENT_DOC } from "../../src/catalog/models";
import { database } from "../../src/db";
import { DeploymentConfigSchema } from "../../src/deployments/config";
import {
  deleteDeployment,
  deploymentByName,
  envLines,
  leaseOf,
  listDeployments,
  putDeployment,
  renderDeployment,
  rotateDeploymentKey,
  type DeploymentRow,
} from "../../src/deployments/deployments";
import { DeploymentSchema } from "../../src/deployments/schema";
import { notFound } from "../../src/errors";
import { LEASE_NAME } from "../../src/lease/names";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, errorResponse, jsonBody, jsonResponse, router, type AppEnv } from "../context";
import { requireScope } from "../middleware";

const NameParam = z.object({
  name: z
    .string()
    .regex(LEASE_NAME, "a deployment name is 1 to 63 lowercase letters, digits and '-', beginning with a letter or digit")
    .openapi({ param: { name: "name", in: "path" }, example: "chat" }),
});

const PUT_ERRORS = {
  402: errorResponse("over_budget: the deployment's lease would pass one of the org's caps; nothing was rented", ["over_budget"]),
  409: errorResponse(
    `config_changed: the deployment runs another model, spec, image or engine_args (send ?recreate=true to replace its machine); deployment_busy: it was deleted while this request ran; limit_reached: ${MAX_DEPLOYMENTS} deployments already; ${NO_PLACEMENT_DOC}; provider_not_configured, capability_missing, no_capacity, volume_busy, image_not_pinned: its lease was refused (details as for POST /v1/leases)`,
    ["config_changed", "deployment_busy", "limit_reached", "no_placement", "provider_not_configured", "capability_missing", "no_capacity", "volume_busy", "image_not_pinned"],
  ),
} as const;

/** The deployment as answered to this caller: its key only with `write` or above. */
async function answer(c: Context<AppEnv>, row: DeploymentRow) {
  return renderDeployment(c.env, row, await leaseOf(c.env, row), hasScope(c.var.principal, "write"));
}

async function found(c: Context<AppEnv>, name: string): Promise<DeploymentRow> {
  const row = await deploymentByName(database(c.env.DB), c.var.principal.org_id, name);
  if (!row) throw notFound("deployment", name);
  return row;
}

export const deploymentRoutes = router()
  .openapi(
    createRoute({
      method: "put",
      path: "/deployments/{name}",
      summary: "Serve a model under a name: made, started again or found (idempotent by name)",
      description:
        "202 when this call rented or started a machine, 200 when it found one. `state` is its lease's (`ready` once the model answers `GET /v1/models`). A configuration (model, spec, image, engine_args) other than the running one is 409 `config_changed` unless `?recreate=true`, which ends the old machine and rents a new one.",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: {
        params: NameParam,
        query: z.object({ recreate: z.enum(["true", "false"]).optional().describe("true: a changed configuration replaces the machine") }),
        ...jsonBody(DeploymentConfigSchema),
      },
      responses: {
        200: jsonResponse(DeploymentSchema, "The deployment, found as it is"),
        202: jsonResponse(DeploymentSchema, "The deployment, its machine rented or started"),
        ...COMMON_ERRORS,
        ...PUT_ERRORS,
        503: errorResponse(
          "provider_keys_disabled: the installation has no LESSOR_MASTER_KEY to seal the deployment's key with; preemption_failed: as POST /v1/leases",
          ["provider_keys_disabled", "preemption_failed"],
        ),
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      const out = await putDeployment(db, c.env, orgId, name, c.req.valid("json"), c.req.valid("query").recreate === "true", c.var.now);
      return c.json(await renderDeployment(c.env, out.row, out.lease, true), out.status);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/deployments",
      summary: "List the org's deployments by name",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { query: z.object(PageQuery) },
      responses: {
        200: jsonResponse(z.object({ data: z.array(DeploymentSchema), next_cursor: z.string().nullable() }), "A page of deployments"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const after = decodeCursor(cursor);
      const rows = await listDeployments(database(c.env.DB), c.var.principal.org_id, after === null ? null : String(after.k), limit);
      const page = pageOf(rows, limit, (r) => ({ k: r.name, id: r.id }), (r) => r);
      return c.json({ data: await Promise.all(page.data.map((r) => answer(c, r))), next_cursor: page.next_cursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/deployments/{name}",
      summary: "A deployment and its lease's state",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: NameParam },
      responses: { 200: jsonResponse(DeploymentSchema, "The deployment"), ...COMMON_ERRORS },
    }),
    async (c) => c.json(await answer(c, await found(c, c.req.valid("param").name)), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/deployments/{name}",
      summary: "End the deployment's lease and forget the deployment (its name and key)",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: { params: NameParam },
      responses: {
        200: jsonResponse(DeploymentSchema, "The deployment as it was; its lease is releasing"),
        409: errorResponse("invalid_state: its lease could not be ended", ["invalid_state"]),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const row = await deleteDeployment(database(c.env.DB), c.env, c.var.principal.org_id, name);
      if (!row) throw notFound("deployment", name);
      return c.json(await answer(c, row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/deployments/{name}/rotate-key",
      summary: "Give the deployment a new api_key; the old one stops working at once",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: { params: NameParam },
      responses: { 200: jsonResponse(DeploymentSchema, "The deployment, with its new key"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const row = await rotateDeploymentKey(database(c.env.DB), c.env, c.var.principal.org_id, name, c.var.now);
      if (!row) throw notFound("deployment", name);
      return c.json(await answer(c, row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/deployments/{name}/env",
      summary: "OPENAI_BASE_URL, OPENAI_API_KEY and LESSOR_MODEL_ID as shell `export` lines",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: { params: NameParam },
      responses: {
        200: { description: "Shell lines: `eval \"$(...)\"`", content: { "text/plain": { schema: z.string() } } },
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const view = await answer(c, await found(c, c.req.valid("param").name));
      return c.text(envLines(view), 200);
    },
  );
