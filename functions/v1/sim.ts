/**
 * `GET/PUT /v1/sim/faults`: the simulated cloud's fault injection, for the installation's
 * operator (bootstrap token), never for an org: the sim is shared by every org of an installation.
 * `GET /v1/sim/ledger`: every simulated machine's life. `POST /v1/sim/machines/:id/{start,stop,destroy}`:
 * what a person does in a provider's console, behind lessor's back, so that what lessor does
 * then can be reproduced (a stopped lease's machine started again, say).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError, notFound } from "../../src/errors";
import { simAdmin } from "../../src/providers/sim/adapter";
import { changeFaults } from "../../src/providers/sim/operator";
import { BEARER, COMMON_ERRORS, jsonResponse, router } from "../context";
import { requireBootstrapToken } from "../middleware";

const FaultsSchema = z
  .object({
    api_error_rate: z.number().min(0).max(1),
    rate_limit_rate: z.number().min(0).max(1),
    ambiguous_create_rate: z.number().min(0).max(1),
    boot_failure_rate: z.number().min(0).max(1),
    vanish_rate: z.number().min(0).max(1),
    no_capacity_rate: z.number().min(0).max(1),
    provision_delay_ms: z.number().int(),
    boot_delay_ms: z.number().int(),
    retry_after_s: z.number().int(),
    vanish_min_ms: z.number().int(),
    vanish_max_ms: z.number().int(),
    seed: z.number().int(),
    billing_window_ms: z.number().int(),
    billing_delay_ms: z.number().int(),
    billing_markup: z.number().min(0),
  })
  .openapi("SimFaults");

const SimMachineSchema = z.record(z.string(), z.unknown()).openapi("SimMachine", { description: "A simulated machine as the sim's API answers it" });
const SIM_OPERATOR_ACTIONS = ["start", "stop", "destroy"] as const;

const LedgerSchema = z
  .object({
    now: z.number().int(),
    machines: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("SimLedger");

export const simRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/sim/ledger",
      summary: "Every simulated machine's life: created, each interval it ran or sat stopped, destroyed (bootstrap token)",
      security: BEARER,
      middleware: [requireBootstrapToken] as const,
      request: { query: z.object({ label_prefix: z.string().max(256).optional() }) },
      responses: { 200: jsonResponse(LedgerSchema, "The ledger"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const ledger = await simAdmin(c.env).getLedger(c.req.valid("query").label_prefix ?? "");
      return c.json(ledger as unknown as z.infer<typeof LedgerSchema>, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/sim/faults",
      summary: "The simulated cloud's faults in force (bootstrap token)",
      security: BEARER,
      middleware: [requireBootstrapToken] as const,
      responses: { 200: jsonResponse(FaultsSchema, "The faults"), ...COMMON_ERRORS },
    }),
    async (c) => c.json(await simAdmin(c.env).getFaults(), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/sim/faults",
      summary: "Change the simulated cloud's faults; fields left out keep their value (bootstrap token)",
      security: BEARER,
      middleware: [requireBootstrapToken] as const,
      request: { body: { content: { "application/json": { schema: FaultsSchema.partial().strict() } }, required: true } },
      responses: { 200: jsonResponse(FaultsSchema, "The faults now in force"), ...COMMON_ERRORS },
    }),
    async (c) => {
      return c.json(await changeFaults(c.env, c.req.valid("json")), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/sim/machines/{id}/{action}",
      summary: "Start, stop or destroy a simulated machine as a provider's console would, behind lessor's back (bootstrap token)",
      security: BEARER,
      middleware: [requireBootstrapToken] as const,
      request: {
        params: z.object({
          id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" }, example: "sim-m-0a1b2c3d4e5f" }),
          action: z.enum(SIM_OPERATOR_ACTIONS).openapi({ param: { name: "action", in: "path" } }),
        }),
      },
      responses: {
        200: jsonResponse(SimMachineSchema, "The machine after the action"),
        409: { description: "invalid_state: the machine is not in a status the action applies to", content: COMMON_ERRORS[400].content },
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { id, action } = c.req.valid("param");
      const result = await simAdmin(c.env).operate(id, action);
      if (result.ok) return c.json(result.machine as unknown as Record<string, unknown>, 200);
      if (result.status === 404) throw notFound("machine", id);
      if (result.status === 409) {
        throw new ApiError(409, "invalid_state", `cannot ${action} machine ${id}: it is ${result.machine_status ?? "in another status"}`, { status: result.machine_status, action });
      }
      throw new ApiError(400, "invalid_request", result.message || `the sim refused: ${result.code}`);
    },
  );
