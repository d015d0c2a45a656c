/**
 * `GET/PUT /v1/sim/faults`: the simulated cloud's fault injection, for the installation's
 * operator (bootstrap token), never for an org: the sim is shared by every org of an installation.
 * `GET /v1/sim/ledger`: every simulated machine's life. `POST /v1/sim/machines/:id/{start,stop,destroy}`:
 * what a person does in a provider's console, behind lessor's back, so that what lessor does
 * then can be reproduced (a stopped lease's machine started again, say).
 * `POST /v1/sim/leases/:id/agent-token`, `GET /v1/sim/leases/:id/agent`,
 * `POST /v1/sim/leases/:id/agent-commands`: a lease's machine agent driven by hand, for the tests
 * (docs/agent.md "Testing"): mint its token, read what it reported, queue an exec or a signal.
 * Refused in production, where only the provisioning code mints a token, and only for its machine.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError, notFound } from "../../src/errors";
import type { AgentSnapshot, CommandView } from "../../src/occupant/occupant";
import { simAdmin } from "../../src/providers/sim/adapter";
import { SIM_PORT_CLOSED_HEADER } from "../../src/providers/sim/model-server";
import { forwardedHeaders } from "../../src/deployments/gateway-headers";
import { changeFaults } from "../../src/providers/sim/operator";
import type { Context } from "hono";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonBody, jsonResponse, router, type AppEnv } from "../context";
import { requireBootstrapToken } from "../middleware";
import { SIM_STATUSES, type SimAliveStatus, type SimLedger, type SimMachineJson } from "../../src/providers/sim/machines";
import { sameShape } from "../../src/same-shape";

const FaultsSchema = z
  .object({
    api_error_rate: z.number().min(0).max(1),
    rate_limit_rate: z.number().min(0).max(1),
    ambiguous_create_rate: z.number().min(0).max(1),
    boot_failure_rate: z.number().min(0).max(1),
    vanish_rate: z.number().min(0).max(1),
    no_capacity_rate: z.number().min(0).max(1),
    preempt_rate: z.number().min(0).max(1).describe("a spot machine is taken back (EXITED, interrupted) vanish_min_ms..vanish_max_ms after it first runs"),
    provision_delay_ms: z.number().int(),
    boot_delay_ms: z.number().int(),
    retry_after_s: z.number().int(),
    vanish_min_ms: z.number().int(),
    vanish_max_ms: z.number().int(),
    seed: z.number().int(),
    billing_window_ms: z.number().int(),
    billing_delay_ms: z.number().int(),
    billing_markup: z.number().min(0),
    agent_heartbeat_ms: z.number().int().describe("how often a sim machine's agent heartbeats"),
    model_tokens_per_s: z.number().int().describe("how fast a sim machine's model server produces tokens"),
  })
  .openapi("SimFaults");

const Ms = z.number().int().describe("milliseconds since the epoch");
const SimStatusSchema = z.enum(SIM_STATUSES);

const SimMachineSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    status: SimStatusSchema,
    offer_id: z.string(),
    host_id: z.string(),
    region: z.string(),
    gpu_name: z.string(),
    num_gpus: z.number().int(),
    price_per_hour: z.number().describe("billed per hour from STARTING through RUNNING"),
    disk_price_per_hour: z.number().describe("billed per hour while EXITED or ERROR (the disk is kept)"),
    image: z.string().nullable(),
    cmd: z.string().nullable(),
    ports: z.array(z.number().int()).describe("the TCP ports the machine serves; 8000 is its model server's"),
    created_at: Ms,
    status_since: Ms.describe("when it entered `status`"),
    destroyed_at: Ms.nullable(),
    interrupted: z.boolean().describe("taken back by the cloud (a spot machine preempted): EXITED for good, until destroyed"),
  })
  .openapi("SimMachine", { description: "A simulated machine as the sim's API answers it" });

sameShape<z.infer<typeof SimMachineSchema>, SimMachineJson>(true);
const SIM_OPERATOR_ACTIONS = ["start", "stop", "destroy", "preempt"] as const;

const LedgerSchema = z
  .object({
    now: Ms,
    machines: z.array(
      z
        .object({
          id: z.string(),
          label: z.string(),
          offer_id: z.string(),
          price_per_hour: z.number(),
          disk_price_per_hour: z.number(),
          status: SimStatusSchema,
          created_at: Ms,
          destroyed_at: Ms.nullable(),
          vanished: z.boolean().describe("terminated by the cloud itself (vanish fault), not by a call"),
          interrupted: z.boolean().describe("taken back by the cloud (a spot machine preempted: preempt_rate, or the operator's preempt), not stopped by a call"),
          alive_ms: z.number().int().describe("from create to destroy, or to `now` while alive"),
          intervals: z.array(z.object({ status: z.enum(SIM_STATUSES.filter((st) => st !== "TERMINATED") as [SimAliveStatus, ...SimAliveStatus[]]), from: Ms, to: Ms.nullable() })),
          refusals: z
            .array(z.object({ at: Ms, status: z.union([z.literal(429), z.literal(503)]), retry_after_ms: z.number().int().nullable() }))
            .describe("calls on the machine the sim refused with an injected fault, with the Retry-After it imposed"),
          volumes: z.array(z.string()).describe("the volumes it mounts"),
        })
        .openapi("SimLedgerMachine"),
    ),
    volumes: z.array(
      z
        .object({ id: z.string(), label: z.string(), region: z.string(), size_gb: z.number().int(), created_at: Ms, deleted_at: Ms.nullable() })
        .openapi("SimLedgerVolume"),
    ),
  })
  .openapi("SimLedger");

sameShape<z.infer<typeof LedgerSchema>, SimLedger>(true);

/** The lease's object, for the agent routes below; never in production. */
function agentLease(c: Context<AppEnv>, id: string) {
  if (c.env.LESSOR_ENVIRONMENT === "production") throw new ApiError(403, "sim_only", "driving a lease's agent by hand is for development and tests only");
  if (!/^ls_[0-9a-z]{26}$/.test(id)) throw notFound("lease", id);
  return c.env.LEASE.get(c.env.LEASE.idFromName(id));
}

/**
 * A lease the operator may not drive: its machine is an org's own provider's, not the sim's. The
 * bootstrap token acts only on the simulated cloud, in every mode (docs/security.md, hardening
 * item 14): it never execs on, signals or impersonates the agent of a machine an org pays for.
 */
const notSim = (id: string) => new ApiError(403, "sim_only", `lease ${id} is not on the simulated cloud: the bootstrap token drives only the sim's machines`, { lease_id: id });

/** The test-only agent routes: the installation's operator only (the bootstrap token), and a lease on the sim only. */
const AGENT_TEST_ROUTE = { security: BEARER, middleware: requireBootstrapToken };
const AGENT_TEST_ERRORS = { ...COMMON_ERRORS, 403: errorResponse("sim_only: refused in production, and for a lease that is not on the simulated cloud") } as const;
const JsonRecord = z.record(z.string(), z.unknown());

/** `/v1/sim/machines/:id/ports/:port/...`: the path and query after the port. */
const MACHINE_PORT = /^\/v1\/sim\/machines\/[^/]+\/ports\/\d{1,5}(\/.*)$/;

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
      return c.json(ledger, 200);
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
      summary: "Start, stop or destroy a simulated machine as a provider's console would, behind lessor's back, or preempt a spot one as the cloud would (bootstrap token)",
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
        409: errorResponse(
          "invalid_state: the machine is not in a status the action applies to (details: status, action); not_interruptible: preempt of a machine not of a spot offer",
          ["invalid_state", "not_interruptible"],
        ),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { id, action } = c.req.valid("param");
      const result = await simAdmin(c.env).operate(id, action);
      if (result.ok) return c.json(result.machine as SimMachineJson, 200);
      if (result.status === 404) throw notFound("machine", id);
      if (result.status === 409 && result.code === "not_interruptible") {
        throw new ApiError(409, "not_interruptible", `cannot preempt machine ${id}: it is not of a spot (interruptible) offer`, { status: result.machine_status, action });
      }
      if (result.status === 409) {
        throw new ApiError(409, "invalid_state", `cannot ${action} machine ${id}: it is ${result.machine_status ?? "in another status"}`, { status: result.machine_status, action });
      }
      throw new ApiError(400, "invalid_request", result.message || `the sim refused: ${result.code}`);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/sim/leases/{id}/agent-token",
      summary: "Mint (rotate) a lease's agent token, for tests: shown once (bootstrap token; not in production)",
      ...AGENT_TEST_ROUTE,
      request: { params: IdParam("ls") },
      responses: {
        201: jsonResponse(z.object({ token: z.string() }), "The lease token; the one before stops working"),
        409: errorResponse("invalid_state: the lease is released"),
        ...AGENT_TEST_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const token = await agentLease(c, id).mintAgentToken();
      if (token === null) throw notFound("lease", id);
      if (token === "not_sim") throw notSim(id);
      if (token === "released") throw new ApiError(409, "invalid_state", `lease ${id} is released`);
      return c.json({ token }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/sim/leases/{id}/enroll-token",
      summary: "Mint a lease's enrollment token, as a create does, for tests (bootstrap token; not in production)",
      ...AGENT_TEST_ROUTE,
      request: { params: IdParam("ls") },
      responses: {
        201: jsonResponse(z.object({ enroll_token: z.string() }), "The enrollment token; the lease token before stops working"),
        409: errorResponse("invalid_state: the lease is released"),
        ...AGENT_TEST_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const token = await agentLease(c, id).mintEnrollToken();
      if (token === null) throw notFound("lease", id);
      if (token === "not_sim") throw notSim(id);
      if (token === "released") throw new ApiError(409, "invalid_state", `lease ${id} is released`);
      return c.json({ enroll_token: token }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/sim/leases/{id}/agent",
      summary: "What a lease's agent reported: heartbeat, exit, log, commands (bootstrap token; not in production)",
      ...AGENT_TEST_ROUTE,
      request: { params: IdParam("ls") },
      responses: { 200: jsonResponse(JsonRecord.openapi("SimAgentSnapshot"), "The agent's side of the lease"), ...AGENT_TEST_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const snapshot = (await agentLease(c, id).agentSnapshot(null)) as AgentSnapshot | "not_sim" | null;
      if (!snapshot) throw notFound("lease", id);
      if (snapshot === "not_sim") throw notSim(id);
      return c.json(snapshot as unknown as Record<string, unknown>, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/sim/leases/{id}/agent-commands",
      summary: "Queue an exec or a signal for a lease's agent (bootstrap token; not in production)",
      ...AGENT_TEST_ROUTE,
      request: {
        params: IdParam("ls"),
        ...jsonBody(
          z.union([
            z.strictObject({ kind: z.literal("exec"), cmd: z.string().min(1).max(8192) }),
            z.strictObject({ kind: z.literal("signal"), signal: z.enum(["TERM", "KILL"]) }),
          ]),
        ),
      },
      responses: {
        201: jsonResponse(JsonRecord.openapi("SimAgentCommand"), "The command, queued"),
        409: errorResponse("invalid_state: the lease is released; too_many_commands: 100 are open already"),
        ...AGENT_TEST_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const queued = (await agentLease(c, id).queueAgentCommand(null, c.req.valid("json"))) as CommandView | "full" | "released" | "not_sim" | null;
      if (queued === null) throw notFound("lease", id);
      if (queued === "not_sim") throw notSim(id);
      if (queued === "released") throw new ApiError(409, "invalid_state", `lease ${id} is released`);
      if (queued === "full") throw new ApiError(409, "too_many_commands", "100 commands are open for this lease already");
      return c.json(queued as unknown as Record<string, unknown>, 201);
    },
  );

// The machine's model server reached directly, as a caller on the machine itself would reach it
// (no lessor, no gateway): for benchmarking the gateway against it (bootstrap token; not in
// production). Not in the OpenAPI document: what it answers is the model server's.
simRoutes.all("/sim/machines/:id/ports/:port/*", requireBootstrapToken, async (c) => {
  if (c.env.LESSOR_ENVIRONMENT === "production") throw new ApiError(403, "sim_only", "the simulated cloud's machines are for development and tests only");
  const port = Number(c.req.param("port"));
  if (!Number.isSafeInteger(port) || port < 1 || port > 65_535) throw new ApiError(400, "invalid_request", "port must be 1 to 65535");
  const url = new URL(c.req.url);
  const path = MACHINE_PORT.exec(url.pathname)?.[1] ?? "/";
  const method = c.req.method;
  const body = method === "GET" || method === "HEAD" ? null : await c.req.arrayBuffer();
  const id = c.req.param("id");
  const answer = await simAdmin(c.env).machinePort(id, port, `${path}${url.search}`, { method, headers: forwardedHeaders(c.req.raw.headers), body });
  if (answer.status === 502 && answer.headers.get(SIM_PORT_CLOSED_HEADER) !== null) {
    // Nothing listens there: lessor's answer, not a gateway's failure (no such machine, not running, or not serving).
    await answer.body?.cancel();
    throw new ApiError(409, "port_closed", `nothing listens on port ${port} of machine ${id}: it does not exist, is not running, or is not serving`, { machine_id: id, port });
  }
  return answer;
});
