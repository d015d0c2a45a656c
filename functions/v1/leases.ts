/**
 * `POST/GET /v1/leases`, `GET /v1/leases/:id`, `GET /v1/leases/:id/events`,
 * `POST /v1/leases/:id/{end,stop,start,extend,lock,unlock,heartbeat}`, `POST /v1/leases/:id/kill`.
 * Reads of one lease go to its object; lists go to the D1 index.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { SpecSchema } from "../../src/catalog/spec";
import { database } from "../../src/db";
import { DurationSchema } from "../../src/duration";
import { ApiError, badRequest, notFound } from "../../src/errors";
import { idempotent } from "../../src/idempotency";
import { KILL_OUTCOMES, KILL_TIMEOUT_DEFAULT_MS, KILL_TIMEOUT_MAX_MS } from "../../src/lease/command";
import { createLease, LeaseEnvSchema } from "../../src/lease/create";
import type { ActResult, LeaseEvent, UserAction } from "../../src/lease/object";
import { LeaseEventSchema } from "../../src/lease/event-schema";
import { GuardedLeaseSchema, LeaseSchema, type LeaseView } from "../../src/lease/view";
import { listLeaseBodies } from "../../src/lease/list-repo";
import { LeaseNameSchema } from "../../src/lease/names";
import { LEASE_KINDS, parseDurationField, PolicyInputSchema } from "../../src/lease/policy";
import { LEASE_STATES } from "../../src/lease/state";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonResponse, router, type AppEnv } from "../context";
import { requireScope } from "../middleware";

const LEASE_ID = /^ls_[0-9a-z]{26}$/;

const LeaseCommon = {
  kind: z.enum(LEASE_KINDS),
  policy: PolicyInputSchema.optional(),
  image: z.string().min(1).max(512).optional().describe("container image; pin it by digest (`@sha256:`)"),
  cmd: z.string().min(1).max(8192).optional().describe("the command the machine's agent runs; required for a job"),
  env: LeaseEnvSchema.optional(),
  name: LeaseNameSchema.optional(),
};

/** Exactly one of `spec` and `quote_id`: a lease for a spec, or for the offers a quote answered. */
const CreateLeaseSchema = z
  .union(
    [
      z.strictObject({ ...LeaseCommon, spec: SpecSchema }).openapi("CreateLeaseForSpec"),
      z.strictObject({ ...LeaseCommon, quote_id: z.string().max(64) }).openapi("CreateLeaseForQuote"),
    ],
    { error: "a lease takes exactly one of `spec` and `quote_id`, beside kind, policy, image and cmd" },
  )
  .openapi("CreateLease", { description: "a lease takes exactly one of `spec` and `quote_id`" });


const IDEMPOTENCY_422 = {
  422: errorResponse("idempotency_mismatch: this Idempotency-Key was used with a different body", ["idempotency_mismatch"]),
} as const;
const CREATE_ERRORS = {
  409: errorResponse(
    "quote_expired; quote_drift: the offer's price rose beyond the quote's tolerance; name_taken: a live lease of the org has this name (details: lease_id); provider_not_configured: the org cannot rent from the spec's or the quote's providers; capability_missing: a lease with a cmd, and no provider it may use runs lessor's agent (details: capabilities, providers); no_capacity: nothing fits (details name the constraint); idempotency_in_progress: a request with this Idempotency-Key is still running",
    ["quote_expired", "quote_drift", "name_taken", "provider_not_configured", "capability_missing", "no_capacity", "idempotency_in_progress"],
  ),
  ...IDEMPOTENCY_422,
} as const;
const ACTION_ERRORS = {
  409: errorResponse("invalid_state: the action does not apply to the lease in its state (details: state, action)", ["invalid_state"]),
} as const;

function stubOf(c: Context<AppEnv>, id: string) {
  if (!LEASE_ID.test(id)) throw notFound("lease", id);
  return c.env.LEASE.get(c.env.LEASE.idFromName(id));
}

const ACTION_BODIES = {
  end: z.strictObject({}),
  stop: z.strictObject({}),
  start: z.strictObject({}),
  unlock: z.strictObject({}),
  heartbeat: z.strictObject({}),
  extend: z.strictObject({ by: DurationSchema.describe("how much longer the ttl runs: `30m`, `2h`") }),
  lock: z.strictObject({ for: DurationSchema.describe("how long the lease counts as in use; capped by the hard caps") }),
} as const satisfies Record<UserAction, z.ZodType>;

const ACTION_SUMMARIES: Record<UserAction, string> = {
  end: "Release the lease: destroy its machine (idempotent)",
  stop: "Stop the machine, keeping its disk",
  start: "Start a stopped machine: a new session",
  extend: "Extend the ttl",
  lock: "Mark the lease in use until a time (never beyond the hard caps)",
  unlock: "Remove the lock",
  heartbeat: "Mark activity now",
};

const app = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/leases",
      summary: "Lease a machine for a spec or a quote (Idempotency-Key honoured)",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: {
        headers: z.object({ "idempotency-key": z.string().optional() }),
        body: { content: { "application/json": { schema: CreateLeaseSchema } }, required: true },
      },
      responses: {
        202: jsonResponse(LeaseSchema, "The lease, provisioning"),
        402: errorResponse("over_budget: the lease would pass one of the org's caps (details: cap, limit_usd, committed_usd, requested_usd); nothing was rented", ["over_budget"]),
        ...CREATE_ERRORS,
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const orgId = c.var.principal.org_id;
      const now = c.var.now;
      const db = database(c.env.DB);
      const answer = await idempotent(db, { org_id: orgId, route: "POST /v1/leases" }, c.req.header("idempotency-key"), body, now, async () => ({
        status: 202,
        body: await createLease(db, c.env, orgId, body, now),
      }));
      if (answer.replayed) c.header("Idempotent-Replayed", "true");
      return c.json(answer.body as LeaseView, answer.status as 202);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/leases",
      summary: "List leases, newest first (from the index)",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: {
        query: z.object({
          state: z.enum(LEASE_STATES).optional(),
          kind: z.enum(LEASE_KINDS).optional(),
          name: LeaseNameSchema.optional().describe("every lease created with this name, released ones included (at most one is live)"),
          ...PageQuery,
        }),
      },
      responses: {
        200: jsonResponse(z.object({ data: z.array(LeaseSchema), next_cursor: z.string().nullable() }), "A page of leases"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { state, kind, name, limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const rows = await listLeaseBodies(database(c.env.DB), c.var.principal.org_id, { state, kind, name, after: decodeCursor(cursor), limit });
      return c.json(pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), (r) => JSON.parse(r.body) as LeaseView), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/leases/{id}",
      summary: "A lease from its object, with `guard`: what the policy would do, why, and when",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("ls") },
      responses: { 200: jsonResponse(GuardedLeaseSchema, "The lease"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const lease = await stubOf(c, id).view(c.var.principal.org_id);
      if (!lease) throw notFound("lease", id);
      return c.json(lease, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/leases/{id}/events",
      summary: "Every transition of a lease with its reason, oldest first",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("ls") },
      responses: { 200: jsonResponse(z.object({ data: z.array(LeaseEventSchema) }), "The events"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const events = (await stubOf(c, id).events(c.var.principal.org_id)) as LeaseEvent[] | null;
      if (!events) throw notFound("lease", id);
      return c.json({ data: events as unknown as z.infer<typeof LeaseEventSchema>[] }, 200);
    },
  );

for (const action of Object.keys(ACTION_BODIES) as UserAction[]) {
  app.openapi(
    createRoute({
      method: "post",
      path: `/leases/{id}/${action}`,
      summary: ACTION_SUMMARIES[action],
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: {
        params: IdParam("ls"),
        body: { content: { "application/json": { schema: ACTION_BODIES[action] } }, required: action === "extend" || action === "lock" },
      },
      responses: {
        200: jsonResponse(LeaseSchema, "The lease after the action"),
        ...(action === "extend" || action === "start"
          ? { 402: errorResponse("over_budget: the lease's new worst case would pass one of the org's caps; nothing changed", ["over_budget"]) }
          : {}),
        ...ACTION_ERRORS,
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = (c.req.valid("json") ?? {}) as { by?: string; for?: string };
      const arg: { ms?: number } = {};
      if (action === "extend") arg.ms = parseDurationField("by", body.by!);
      if (action === "lock") arg.ms = parseDurationField("for", body.for!);
      const result = (await stubOf(c, id).act(c.var.principal.org_id, action, arg)) as ActResult;
      if (!result.ok) {
        if (result.status === 404) throw notFound("lease", id);
        throw new ApiError(result.status, result.code, result.message, result.details);
      }
      return c.json(result.lease, 200);
    },
  );
}

app.openapi(
  createRoute({
    method: "post",
    path: "/leases/{id}/kill",
    summary: "End the lease's command: TERM, wait up to `timeout` for its exit, then KILL when `escalate` (idempotent)",
    security: BEARER,
    middleware: [requireScope("write")] as const,
    request: {
      params: IdParam("ls"),
      body: {
        content: {
          "application/json": {
            schema: z.strictObject({
              timeout: DurationSchema.optional().describe("how long to wait for the exit after TERM, and again after KILL; default 10s, at most 120s"),
              escalate: z.boolean().optional().describe("send KILL when TERM did not end it within timeout; default true"),
            }),
          },
        },
        required: false,
      },
    },
    responses: {
      200: jsonResponse(
        z.object({
          outcome: z
            .enum(KILL_OUTCOMES)
            .describe("stopped: it ended (or had already); unknown: the agent could not be reached, assume nothing stopped; still_alive: no exit came"),
        }),
        "What became of the command",
      ),
      ...COMMON_ERRORS,
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as { timeout?: string; escalate?: boolean };
    const timeout_ms = body.timeout === undefined ? KILL_TIMEOUT_DEFAULT_MS : parseDurationField("timeout", body.timeout);
    if (timeout_ms > KILL_TIMEOUT_MAX_MS) throw badRequest("invalid_duration", `timeout: at most ${KILL_TIMEOUT_MAX_MS / 1000}s`, { field: "timeout" });
    const outcome = await stubOf(c, id).kill(c.var.principal.org_id, { timeout_ms, escalate: body.escalate ?? true });
    if (outcome === null) throw notFound("lease", id);
    return c.json({ outcome }, 200);
  },
);

export const leaseRoutes = app;
