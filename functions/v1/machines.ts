/** `GET /v1/machines`: the machines lessor's label marks in the org's provider accounts (admin scope). */
import { createRoute } from "@hono/zod-openapi";
import { database } from "../../src/db";
import { MachinesSchema, orgMachines } from "../../src/machines";
import { BEARER, COMMON_ERRORS, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

export const machineRoutes = router().openapi(
  createRoute({
    method: "get",
    path: "/machines",
    summary: "Every machine lessor's label marks in the org's provider accounts and the sim: its lease, or when the reconciler stops and destroys it as an orphan",
    security: BEARER,
    middleware: [requireScope("admin")] as const,
    responses: {
      200: jsonResponse(MachinesSchema, "The machines, and how listing each provider account went (a failure there is not an error here)"),
      ...COMMON_ERRORS,
    },
  }),
  async (c) => c.json(await orgMachines(c.env, database(c.env.DB), c.var.principal.org_id, c.var.now), 200),
);
