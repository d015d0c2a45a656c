/**
 * `POST/GET /v1/leases`, `POST /v1/leases/validate`, `GET /v1/leases/:id`, `GET /v1/leases/:id/events`,
 * `POST /v1/leases/:id/{end,stop,start,extend,lock,unlock,heartbeat}`, `POST /v1/leases/:id/kill`.
 * Reads of one lease go to its object; lists go to the org's lease index, in the org's object.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import { SpecSchema } from "../../src/catalog/spec";
import { database } from "../../src/db";
import { DurationSchema } from "../../src/duration";
import { ApiError, badRequest, notFound } from "../../src/errors";
import { idempotent } from "../../src/idempotency";
import { KILL_OUTCOMES, KILL_TIMEOUT_DEFAULT_MS, KILL_TIMEOUT_MAX_MS } from "../../src/lease/command";
import { ConfigWarningSchema } from "../../src/lease/config-check";
import { createLease, LeaseEnvSchema, validateLease } from "../../src/lease/create";
import { MountsSchema } from "../../src/volumes/volumes";
import type { ActResult, UserAction } from "../../src/lease/object";
import { LeaseEventSchema, type LeaseEventBody, type LeaseEventPage } from "../../src/events/lease-events";
import { answerEvents, eventAnswers, EventHeaders, EventQuery, resumeAfter, streamResponse, wantsStream, type EventsAnswer } from "../../src/events/follow";
import { GuardedLeaseSchema, LeaseSchema, storedView, storedViewJson, type LeaseView } from "../../src/lease/view";
import { listLeaseBodies } from "../../src/lease/list-repo";
import { LeaseNameSchema } from "../../src/lease/names";
import { LEASE_KINDS, parseDurationField, PolicyInputSchema } from "../../src/lease/policy";
import { LEASE_STATES } from "../../src/lease/state";
import { EXEC_CMD_MAX_BYTES, EXEC_DEFAULT_TIMEOUT_MS, EXEC_MAX_WAIT_MS, ExecSchema, utf8Bytes, type ExecView } from "../../src/occupant/exec";
import { LOG_RETENTION_MS, TAIL_MAX_LINES } from "../../src/occupant/logs";
import { decodeCursor, DEFAULT_PAGE, encodeCursor, pageOf, PageQuery, type Page } from "../../src/pagination";
import { slotted, streamClaim, type SlotRefusal } from "../../src/auth/stream-slots";
import { ArtifactSchema, BEARER, BINARY, COMMON_ERRORS, errorResponse, IdParam, jsonResponse, pathParam, router, STREAM_400, STREAM_429, type AppEnv } from "../context";
import { requireScope } from "../middleware";
import { byteRange } from "../../src/artifacts/limits";
import { deleteArtifact, findArtifact, leaseOfOrg, listArtifacts } from "../../src/artifacts/store";

const LEASE_ID = /^ls_[0-9a-z]{26}$/;

const LeaseCommon = {
  kind: z.enum(LEASE_KINDS),
  policy: PolicyInputSchema.optional(),
  image: z.string().min(1).max(512).optional().describe("container image; pin it by digest (`@sha256:`)"),
  cmd: z.string().min(1).max(8192).optional().describe("the command the machine's agent runs; required for a job"),
  env: LeaseEnvSchema.optional(),
  name: LeaseNameSchema.optional(),
  workdir: z.string().max(64).optional().describe("job and scratch: a bundle of POST /v1/uploads (`upl_...`), unpacked where the command runs"),
  volumes: MountsSchema.optional(),
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
/** What a create and a validate both refuse, before anything is rented. */
const PLAN_409 =
  "quote_expired; quote_drift: the offer's price rose beyond the quote's tolerance; provider_not_configured: the org cannot rent from the spec's or the quote's providers; capability_missing: a lease with a cmd, and no provider it may use runs lessor's agent (details: capabilities, providers); no_capacity: nothing fits (details name the constraint, and the volumes where it mounts some); volume_busy: a volume it mounts is being made or deleted; image_not_pinned: the org requires images pinned by digest (PUT /v1/org/settings `require_image_digest`) and the image is not, or none is named (details: field)";
const PLAN_CODES = ["quote_expired", "quote_drift", "provider_not_configured", "capability_missing", "no_capacity", "volume_busy", "image_not_pinned"] as const;
const CREATE_ERRORS = {
  409: errorResponse(
    `${PLAN_409}; name_taken: a live lease of the org has this name (details: lease_id); quota_exceeded: the lease's GPUs would pass the org's GPU quota and no scratch lease could be displaced for it (details: quota, limit, held, requested); idempotency_in_progress: a request with this Idempotency-Key is still running`,
    [...PLAN_CODES, "name_taken", "quota_exceeded", "idempotency_in_progress"],
  ),
  ...IDEMPOTENCY_422,
} as const;
/** A deployment over the GPU quota displaced scratch leases and one could not be told to release (src/lease/create.ts). */
export const PREEMPTION_FAILED = errorResponse(
  "preemption_failed: a scratch lease this deployment displaces could not be told to release; nothing was rented (details: leases)",
  ["preemption_failed"],
);
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
        503: PREEMPTION_FAILED,
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
      return c.json(storedView(answer.body as LeaseView), answer.status as 202);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/leases/validate",
      summary: "Check a lease body without renting anything: the warnings its lease would carry, or the refusal its create would meet",
      description:
        "Takes the body of POST /v1/leases. Warnings: `stopped_disk_unbounded` (stopped_ttl null on a provider whose stopped machines bill for disk), `idle_timeout_unreachable` (idle_timeout longer than max_lifetime), `mutable_image_tag` (an image not pinned by `@sha256:`), `ttl_shorter_than_boot` (a ttl shorter than the policy's boot_timeout, the boot lessor allows: it keeps no boot estimate per offer). Nothing is rented, reserved or named.",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: { body: { content: { "application/json": { schema: CreateLeaseSchema } }, required: true } },
      responses: {
        200: jsonResponse(z.object({ warnings: z.array(ConfigWarningSchema) }), "The warnings (empty: none)"),
        409: errorResponse(PLAN_409, [...PLAN_CODES]),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => c.json({ warnings: await validateLease(database(c.env.DB), c.env, c.var.principal.org_id, c.req.valid("json"), c.var.now) }, 200),
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
      const rows = await listLeaseBodies(c.env, c.var.principal.org_id, { state, kind, name, after: decodeCursor(cursor), limit });
      const page = pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), (r) => storedViewJson(r.body));
      // The bodies are JSON already: the page is written around them, byte for byte what c.json would write.
      const text = `{"data":[${page.data.join(",")}],"next_cursor":${JSON.stringify(page.next_cursor)}}`;
      return c.body(text, 200, { "Content-Type": "application/json" }) as unknown as TypedResponse<Page<LeaseView>, 200, "json">;
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
      summary: "A lease's transitions with their reasons, oldest first: a page after an event id, or a live stream (`?follow=1`) that ends once the lease is released",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("ls"), query: z.object(EventQuery), headers: EventHeaders },
      responses: {
        200: eventAnswers(
          z.object({ data: z.array(LeaseEventSchema), next_after: z.number().int().nullable(), released: z.boolean() }),
          "A page of events (`next_after`: ask `after=` it for the next; null at the end), or the stream",
        ),
        ...COMMON_ERRORS,
        ...STREAM_400,
        ...STREAM_429,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const stub = stubOf(c, id);
      const org = c.var.principal.org_id;
      const found = <T>(value: T | null): EventsAnswer<T> => {
        if (value === null) throw notFound("lease", id);
        return { ok: true, value };
      };
      return answerEvents(c.req.valid("query"), c.req.valid("header"), {
        follow: async (after) => found(slotted((await stub.follow(org, after, streamClaim(c.env, c.var.principal))) as ReadableStream<Uint8Array> | SlotRefusal | null)),
        page: async (after, limit) => found((await stub.eventsAfter(org, after, limit)) as LeaseEventPage<LeaseEventBody> | null),
      });
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

// The user's side of the lease's agent: its log and exec (docs/agent.md "The user's side").

const LEASE_RELEASED_409 = {
  409: errorResponse(
    "invalid_state: the lease is released, so nothing runs on it (details: state); too_many_commands: 100 commands of the lease are open",
    ["invalid_state", "too_many_commands"],
  ),
} as const;

const logsExpired = (expiredAt: string) =>
  new ApiError(410, "logs_expired", "the lease's log was deleted after its retention", { expired_at: expiredAt });

app
  .openapi(
    createRoute({
      method: "get",
      path: "/leases/{id}/logs",
      summary: "The machine's output: the last lines as text, or followed as Server-Sent Events (`follow=1` or `Accept: text/event-stream`)",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: {
        params: IdParam("ls"),
        query: z.object({
          tail: z.coerce.number().int().min(0).max(TAIL_MAX_LINES).optional().describe("only the last N lines (the text answer); default all"),
          follow: EventQuery.follow,
        }),
        headers: EventHeaders,
      },
      responses: {
        200: {
          description:
            "text/plain: the log (the dropped-output marker first when output was dropped), with Lessor-Log-Bytes and Lessor-Log-Dropped-Bytes. text/event-stream: `retry:` first, then one event per chunk (`id:` its sequence number, `data:` its text), a `dropped` event when output it would have sent is gone, a `: keepalive` comment every 15 s, and an `end` event (`data:` `{reason: \"exited\", exit}` or `{reason: \"released\"}`) before the stream ends",
          headers: z.object({
            "lessor-log-bytes": z.string().optional().describe("text/plain only: bytes the log holds"),
            "lessor-log-dropped-bytes": z.string().optional().describe("text/plain only: bytes dropped from its start"),
          }),
          content: {
            "text/plain": { schema: z.string() },
            "text/event-stream": { schema: z.string().describe("Server-Sent Events") },
          },
        },
        ...COMMON_ERRORS,
        ...STREAM_400,
        ...STREAM_429,
        410: errorResponse(`logs_expired: the lease was released more than ${LOG_RETENTION_MS / 86_400_000} days ago and its log deleted (details: expired_at); the lease itself still answers`, ["logs_expired"]),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { tail, follow } = c.req.valid("query");
      const headers = c.req.valid("header");
      const stub = stubOf(c, id);
      const orgId = c.var.principal.org_id;
      if (wantsStream(follow, headers.accept)) {
        // Without Last-Event-ID, the whole log (-1: before its first chunk).
        const after = resumeAfter(undefined, headers["last-event-id"], -1);
        const stream = slotted((await stub.followLog(orgId, after, streamClaim(c.env, c.var.principal))) as ReadableStream<Uint8Array> | { expired_at: string } | SlotRefusal | null);
        if (!stream) throw notFound("lease", id);
        if (!(stream instanceof ReadableStream)) throw logsExpired(stream.expired_at);
        return streamResponse(stream);
      }
      const log = await stub.logTail(orgId, tail ?? null);
      if (!log) throw notFound("lease", id);
      if ("expired_at" in log) throw logsExpired(log.expired_at);
      return c.body(log.text, 200, {
        "content-type": "text/plain; charset=utf-8",
        "lessor-log-bytes": String(log.log_bytes),
        "lessor-log-dropped-bytes": String(log.dropped_bytes),
      });
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/leases/{id}/exec",
      summary: `Run a command on the machine and wait for its result (at most the timeout, the lease's ttl and ${EXEC_MAX_WAIT_MS / 1000} s)`,
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: {
        params: IdParam("ls"),
        body: {
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  cmd: z
                    .string()
                    .min(1)
                    .refine((v) => utf8Bytes(v) <= EXEC_CMD_MAX_BYTES, { message: `at most ${EXEC_CMD_MAX_BYTES} bytes (UTF-8)` })
                    .refine((v) => !v.includes("\0"), { message: "a command line holds no NUL" })
                    .describe(`a command line for \`sh -c\`, at most ${EXEC_CMD_MAX_BYTES} bytes`),
                  timeout: DurationSchema.optional().describe(`how long to wait for the result; default ${EXEC_DEFAULT_TIMEOUT_MS / 1000}s`),
                })
                .openapi("ExecRequest"),
            },
          },
          required: true,
        },
      },
      responses: {
        200: jsonResponse(ExecSchema, "The exec's result: done (exit code 0) or failed"),
        ...LEASE_RELEASED_409,
        ...COMMON_ERRORS,
        504: errorResponse("exec_timeout: no result within the wait; the exec goes on, and GET /v1/leases/:id/exec/:exec_id answers it later (details: exec_id)", ["exec_timeout"]),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { cmd, timeout } = c.req.valid("json");
      const timeoutMs = timeout === undefined ? EXEC_DEFAULT_TIMEOUT_MS : parseDurationField("timeout", timeout);
      const exec = (await stubOf(c, id).exec(c.var.principal.org_id, cmd, timeoutMs)) as ExecView | "full" | "released" | null;
      if (exec === null) throw notFound("lease", id);
      if (exec === "released") throw new ApiError(409, "invalid_state", "the lease is released; nothing runs on it", { state: "released" });
      if (exec === "full") throw new ApiError(409, "too_many_commands", "100 commands of this lease are open; wait for their results");
      if (exec.state === "pending" || exec.state === "running") {
        throw new ApiError(504, "exec_timeout", `no result yet; GET /v1/leases/${id}/exec/${exec.exec_id} answers it later`, { exec_id: exec.exec_id }, {}, true);
      }
      return c.json(exec, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/leases/{id}/exec/{exec_id}",
      summary: "One exec of the lease: pending, running, done or failed",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: {
        params: IdParam("ls").extend({
          exec_id: z.string().min(1).max(64).openapi({ param: { name: "exec_id", in: "path" }, example: "cmd_01jd0000000000000000000000" }),
        }),
      },
      responses: { 200: jsonResponse(ExecSchema, "The exec"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id, exec_id } = c.req.valid("param");
      const exec = await stubOf(c, id).execResult(c.var.principal.org_id, exec_id);
      if (!exec) throw notFound("exec", exec_id);
      return c.json(exec, 200);
    },
  );

// ---- a lease's artifacts (docs/artifacts.md "Artifacts: the outputs come back") ----------------
// An artifact's `{path}` is the rest of the URL, slashes and all, which @hono/zod-openapi's `{x}`
// cannot say: the two routes that take one are documented with `registerPath` and served by a Hono
// route with a regex parameter, validated with the same schemas.

const ArtifactPathParam = z.string().openapi({ param: { name: "path", in: "path" }, example: "checkpoints/model.pt", description: "the file's path under LESSOR_OUT (docs/artifacts.md \"Paths\")" });
const ArtifactParams = z.object({ id: IdParam("ls").shape.id, path: ArtifactPathParam });

/** The lease, when it is the caller's org's; 404 alike for another org's and a missing one (guarantee 8). */
async function ownLease(c: Context<AppEnv>, id: string): Promise<void> {
  if (!LEASE_ID.test(id) || !(await leaseOfOrg(c.env, c.var.principal.org_id, id))) throw notFound("lease", id);
}

app.openapi(
  createRoute({
    method: "get",
    path: "/leases/{id}/artifacts",
    summary: "A lease's artifacts, by path",
    security: BEARER,
    middleware: [requireScope("read")] as const,
    request: { params: IdParam("ls"), query: z.object(PageQuery) },
    responses: { 200: jsonResponse(z.object({ data: z.array(ArtifactSchema), next_cursor: z.string().nullable() }), "A page of artifacts"), ...COMMON_ERRORS },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = decodeCursor(cursor);
    await ownLease(c, id);
    const rows = await listArtifacts(c.env, c.var.principal.org_id, id, after ? String(after.k) : null, limit + 1);
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return c.json({ data, next_cursor: rows.length > limit && last ? encodeCursor({ k: last.path, id }) : null }, 200);
  },
);
app.openAPIRegistry.registerPath({
  method: "get",
  path: "/leases/{id}/artifacts/{path}",
  summary: "An artifact's bytes, streamed; `Range: bytes=a-b` answers 206",
  security: BEARER,
  request: { params: ArtifactParams, headers: z.object({ range: z.string().optional() }) },
  responses: {
    200: { description: "The bytes (Lessor-Sha256, ETag, Accept-Ranges)", content: { "application/octet-stream": { schema: BINARY } } },
    206: { description: "The range asked for (Content-Range)", content: { "application/octet-stream": { schema: BINARY } } },
    ...COMMON_ERRORS,
    416: errorResponse("range_not_satisfiable: the range begins past the end (Content-Range: bytes */size)", ["range_not_satisfiable"]),
  },
});
app.openAPIRegistry.registerPath({
  method: "delete",
  path: "/leases/{id}/artifacts/{path}",
  summary: "Delete an artifact",
  security: BEARER,
  request: { params: ArtifactParams },
  responses: { 204: { description: "Deleted" }, ...COMMON_ERRORS },
});

app.get("/leases/:id/artifacts/:path{[\\s\\S]+}", requireScope("read"), async (c) => {
  const id = c.req.param("id");
  const path = pathParam(c);
  await ownLease(c, id);
  const found = await findArtifact(c.env, c.var.principal.org_id, id, path);
  if (!found) throw notFound("artifact", path);
  const { artifact, key } = found;
  const range = byteRange(c.req.header("range"), artifact.size);
  if (range === "unsatisfiable") {
    throw new ApiError(416, "range_not_satisfiable", `the artifact is ${artifact.size} bytes`, { size: artifact.size }, { "Content-Range": `bytes */${artifact.size}` });
  }
  const object = await c.env.ARTIFACTS.get(key, range ? { range: { offset: range.start, length: range.end - range.start + 1 } } : {});
  if (!object) throw notFound("artifact", path);
  const headers: Record<string, string> = {
    "content-type": "application/octet-stream",
    "lessor-sha256": artifact.sha256,
    etag: `"${artifact.sha256}"`,
    "accept-ranges": "bytes",
  };
  if (!range) return c.body(object.body, 200, { ...headers, "content-length": String(artifact.size) });
  return c.body(object.body, 206, { ...headers, "content-length": String(range.end - range.start + 1), "content-range": `bytes ${range.start}-${range.end}/${artifact.size}` });
});

app.delete("/leases/:id/artifacts/:path{[\\s\\S]+}", requireScope("write"), async (c) => {
  const id = c.req.param("id");
  const path = pathParam(c);
  await ownLease(c, id);
  if (!(await deleteArtifact(c.env, c.var.principal.org_id, id, path, c.var.now))) throw notFound("artifact", path);
  return c.body(null, 204);
});

export const leaseRoutes = app;
