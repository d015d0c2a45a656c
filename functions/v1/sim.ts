/**
 * `GET/PUT /v1/sim/faults`: the simulated cloud's fault injection, for the installation's
 * operator (bootstrap token), never for an org: the sim is shared by every org of an installation.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { badRequest } from "../../src/errors";
import { simAdmin } from "../../src/providers/sim/adapter";
import { mergeFaults } from "../../src/providers/sim/faults";
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
      const patch = c.req.valid("json");
      const admin = simAdmin(c.env);
      // Checked against the faults in force here, so a bad combination is this API's 400.
      const merged = mergeFaults(await admin.getFaults(), patch);
      if (!merged.ok) throw badRequest("invalid_faults", merged.message);
      return c.json(await admin.setFaults(patch), 200);
    },
  );
