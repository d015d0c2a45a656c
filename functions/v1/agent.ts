/**
 * `/v1/agent/*`: the machine agent's side of a lease (docs/agent.md). Every route but the script
 * itself takes the lease's token as bearer and the lease's id in `Lessor-Lease-Id`; nothing else
 * is accepted here (no API key, no JWT), and the token is accepted nowhere else (the general
 * `authenticate` knows only keys and JWTs). The token is checked by the lease's object, with the
 * call itself, so a call costs one round trip.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AGENT_SCRIPT } from "../../src/agent/script";
import { ApiError } from "../../src/errors";
import { MODEL_METRICS_MAX_BYTES } from "../../src/lease/model-metrics";
import { LOG_CHUNK_MAX_BYTES, LOG_SEQ_MAX } from "../../src/occupant/logs";
import { agentLimits } from "../../src/occupant/agent-budget";
import { COMMAND_OUTPUT_MAX, MAX_WAIT_MS, type AgentAnswer, type AgentCall } from "../../src/occupant/occupant";
import { COMMAND_KINDS } from "../../src/occupant/schema";
import { ENROLL_NONCE, looksLikeEnrollToken, looksLikeLeaseToken } from "../../src/occupant/token";
import { ArtifactSchema, COMMON_ERRORS, errorResponse, jsonResponse, parsed, pathParam, rawBody, RawHeaders, router, SHA_HEADER, type AppEnv } from "../context";
import { checkPath, MANIFEST_MAX_FILES, MAX_PARTS, PART_SIZE, SHA256_HEX, storageLimits, tooLarge } from "../../src/artifacts/limits";
import { completeMultipart, createMultipart, listParts, storeArtifact, storePart, workdirOf } from "../../src/artifacts/store";
import { bearerToken, refusedCredential } from "../middleware";

const LEASE_ID = /^ls_[0-9a-z]{26}$/;
export const LEASE_ID_HEADER = "lessor-lease-id";
export const LOG_SEQ_HEADER = "lessor-log-seq";
/** The signal names an exit may carry (what `kill -l` prints, or `SIG<n>` for one it cannot name). */
const SIGNAL_NAME = /^[A-Z][A-Z0-9]{0,15}$/;

const LEASE_TOKEN = [{ lease_token: [] }];

const AGENT_ERRORS = {
  400: errorResponse("invalid_request: the request does not match the schema (details.issues)", ["invalid_request"]),
  401: errorResponse("unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`)", ["unauthenticated"]),
  410: errorResponse("lease_released: the lease is released; the agent exits", ["lease_released"]),
  413: COMMON_ERRORS[413],
  415: errorResponse("unsupported_media_type: the body is not of the type the route reads", ["unsupported_media_type"]),
  429: errorResponse(
    "rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After",
    ["rate_limited"],
  ),
} as const;

const unauthenticated = () =>
  new ApiError(401, "unauthenticated", "send `Authorization: Bearer <lease token>` and `Lessor-Lease-Id: <lease id>`", {}, {
    "WWW-Authenticate": 'Bearer realm="lessor-agent"',
  });

/**
 * A well-formed token (of the form `looks` accepts) and lease id, before any validator runs: a
 * caller without them gets 401, never a 400 that describes the schema. Whether the token is the
 * lease's is the object's answer.
 */
const requireToken = (looks: (token: string) => boolean) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    const leaseId = c.req.header(LEASE_ID_HEADER) ?? "";
    if (!token || !looks(token) || !LEASE_ID.test(leaseId)) {
      throw token ? await refusedCredential(c.env, c.req.header("cf-connecting-ip"), unauthenticated()) : unauthenticated();
    }
    await next();
  });
const requireLeaseToken = requireToken(looksLikeLeaseToken);

/** Makes one agent call on the lease's object; its refusals become the envelope. */
async function agentCall<Op extends AgentCall["op"]>(c: Context<AppEnv>, call: AgentCall & { op: Op }): Promise<AgentAnswer & { ok: true; op: Op }> {
  const leaseId = c.req.header(LEASE_ID_HEADER)!;
  const token = bearerToken(c.req.header("authorization"))!;
  const answer = (await c.env.LEASE.get(c.env.LEASE.idFromName(leaseId)).agentCall(token, call, agentLimits(c.env))) as AgentAnswer;
  if (answer.ok) return answer as AgentAnswer & { ok: true; op: Op };
  if (answer.status === 401) throw await refusedCredential(c.env, c.req.header("cf-connecting-ip"), unauthenticated());
  const retry: Record<string, string> = answer.retry_after_s === undefined ? {} : { "Retry-After": String(answer.retry_after_s) };
  throw new ApiError(answer.status, answer.code, answer.message, answer.details, retry);
}

/** A route's request: the lease's id header and a JSON body of `schema` (optional unless `required`). */
const withJson = <S extends z.ZodType>(schema: S, required = true) => ({
  headers: z.object(LeaseIdHeader),
  body: { content: { "application/json": { schema } }, required },
});

const LeaseIdHeader = { [LEASE_ID_HEADER]: z.string().openapi({ example: "ls_01jd0000000000000000000000", description: "the lease the token was made for" }) };

const ExitSchema = z
  .object({
    code: z.number().int().nullable().describe("the exit code, 0 to 255; null when a signal ended the command"),
    signal: z.string().nullable().describe("the signal that ended the command (`TERM`, `KILL`, ...); null when it exited"),
    at: z.string(),
  })
  .openapi("AgentExit");

const CommandSchema = z
  .object({
    id: z.string(),
    kind: z.enum(COMMAND_KINDS).describe("`exec` a command line, `signal` the command's process group, `collect` the outputs before a release (docs/artifacts.md)"),
    signal: z.enum(["TERM", "KILL"]).nullable().describe("for `signal`: what to send to the command's process group"),
    cmd_base64: z.string().nullable().describe("for `exec`: the command line, UTF-8, base64, for `sh -c`"),
  })
  .openapi("AgentCommand");

export const agentRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/agent/agent.sh",
      summary: "The agent script (no authentication: it holds no secret)",
      responses: { 200: { description: "A POSIX sh script", content: { "text/x-shellscript": { schema: z.string() } } } },
    }),
    (c) => c.body(AGENT_SCRIPT, 200, { "content-type": "text/x-shellscript; charset=utf-8" }),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/agent/enroll",
      summary: "The agent's first call: the enrollment token its create carried (`lse_...`) for the lease token",
      security: LEASE_TOKEN,
      middleware: [requireToken(looksLikeEnrollToken)] as const,
      request: withJson(
        z
          .strictObject({
            nonce: z
              .string()
              .regex(ENROLL_NONCE)
              .describe("made and kept on the machine: the same agent may enroll again with it"),
          })
          .openapi("AgentEnroll"),
      ),
      responses: {
        200: jsonResponse(z.object({ token: z.string().describe("the lease token; the one before stops working") }), "Enrolled"),
        ...AGENT_ERRORS,
        401: errorResponse("unauthenticated: no enrollment token, not this lease's, or closed to this nonce", ["unauthenticated"]),
      },
    }),
    async (c) => {
      const { nonce } = c.req.valid("json");
      const { token } = await agentCall(c, { op: "enroll", nonce });
      return c.json({ token }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/agent/heartbeat",
      summary: "The machine's agent is alive (liveness, never activity); on a model's machine it carries the model server's metrics, whose requests are the lease's activity",
      security: LEASE_TOKEN,
      middleware: [requireLeaseToken] as const,
      request: withJson(
        z
          .strictObject({
            metrics: z
              .string()
              .max(MODEL_METRICS_MAX_BYTES)
              .nullable()
              .describe("on a machine that serves a model: its server's `GET /metrics` text (Prometheus); null: it could not be read"),
          })
          .openapi("AgentHeartbeat"),
        false,
      ),
      responses: {
        200: jsonResponse(
          z.object({
            last_heartbeat_at: z.string(),
            model_activity: z
              .enum(["active", "idle", "unobservable"])
              .nullable()
              .describe("what the metrics said: requests on the model server, none, or nothing lessor can read; null: no metrics sent"),
          }),
          "Recorded",
        ),
        ...AGENT_ERRORS,
      },
    }),
    async (c) => {
      // Optional: an agent with no model to read (or an older one) sends no body.
      const body: { metrics?: string | null } = c.req.valid("json") ?? {};
      const answer = await agentCall(c, body.metrics === undefined ? { op: "heartbeat" } : { op: "heartbeat", metrics: body.metrics });
      return c.json({ last_heartbeat_at: answer.last_heartbeat_at, model_activity: answer.model_activity }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/agent/logs",
      summary: "A chunk of the command's output; a chunk whose Lessor-Log-Seq was seen before is stored once",
      security: LEASE_TOKEN,
      middleware: [requireLeaseToken] as const,
      request: {
        headers: z.object({
          ...LeaseIdHeader,
          [LOG_SEQ_HEADER]: z
            .string()
            .regex(/^[0-9]{1,16}$/)
            .refine((v) => Number(v) <= LOG_SEQ_MAX, { message: `at most ${LOG_SEQ_MAX}` })
            .openapi({ example: "0", description: "the chunk's sequence number, from 0, one more per chunk" }),
        }),
        body: { content: { "text/plain": { schema: z.string().max(LOG_CHUNK_MAX_BYTES) } }, required: true },
      },
      responses: {
        200: jsonResponse(z.object({ seq: z.number().int(), stored: z.boolean(), duplicate: z.boolean() }), "Stored, or seen before"),
        ...AGENT_ERRORS,
        413: errorResponse(`payload_too_large: a chunk is at most ${LOG_CHUNK_MAX_BYTES} bytes`, ["payload_too_large"]),
        415: errorResponse("unsupported_media_type: send text/plain (or application/octet-stream)", ["unsupported_media_type"]),
      },
    }),
    async (c) => {
      const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (type !== "text/plain" && type !== "application/octet-stream") {
        throw new ApiError(415, "unsupported_media_type", "a log chunk is sent as text/plain (or application/octet-stream)");
      }
      const data = new Uint8Array(await c.req.arrayBuffer());
      const seq = Number(c.req.valid("header")[LOG_SEQ_HEADER]);
      const { stored, duplicate } = await agentCall(c, { op: "log", seq, data });
      return c.json({ seq, stored, duplicate }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/agent/exit",
      summary: "The command ended: its exit code, or the signal that ended it (the first report wins)",
      security: LEASE_TOKEN,
      middleware: [requireLeaseToken] as const,
      request: withJson(
        z
          .strictObject({
            code: z.number().int().min(0).max(255).nullable(),
            signal: z.string().regex(SIGNAL_NAME).nullable(),
          })
          .refine((b) => (b.code === null) !== (b.signal === null), { message: "exactly one of code and signal" })
          .openapi("AgentExitReport"),
      ),
      responses: {
        200: jsonResponse(z.object({ recorded: z.boolean().describe("false: an earlier report was kept"), exit: ExitSchema }), "The exit as recorded"),
        ...AGENT_ERRORS,
      },
    }),
    async (c) => {
      const { code, signal } = c.req.valid("json");
      const { recorded, exit } = await agentCall(c, { op: "exit", code, signal });
      return c.json({ recorded, exit }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/agent/commands",
      summary: `Commands queued for the machine (exec, signal, collect); waits up to \`wait\` seconds (at most ${MAX_WAIT_MS / 1000}) for one`,
      security: LEASE_TOKEN,
      middleware: [requireLeaseToken] as const,
      request: {
        headers: z.object(LeaseIdHeader),
        query: z.object({
          wait: z.coerce.number().int().min(0).max(MAX_WAIT_MS / 1000).optional(),
          collect: z.enum(["0", "1"]).optional().describe("`1`: this agent carries out `collect`, so a release waits for the outputs (docs/artifacts.md)"),
        }),
      },
      responses: { 200: jsonResponse(z.object({ commands: z.array(CommandSchema) }), "The commands due (maybe none)"), ...AGENT_ERRORS },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const wait = query.wait ?? 0;
      const { commands } = await agentCall(c, { op: "commands", wait_ms: wait * 1000, collect: query.collect === "1" });
      return c.json({ commands }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/agent/commands/{id}",
      summary: "The result of one command (the first result wins)",
      security: LEASE_TOKEN,
      middleware: [requireLeaseToken] as const,
      request: {
        headers: z.object(LeaseIdHeader),
        params: z.object({ id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" }, example: "cmd_01jd0000000000000000000000" }) }),
        body: {
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  exit_code: z.number().int().min(0).max(255).nullable(),
                  output: z.string().max(COMMAND_OUTPUT_MAX).default(""),
                })
                .openapi("AgentCommandResult"),
            },
          },
          required: true,
        },
      },
      responses: {
        200: jsonResponse(z.object({ recorded: z.boolean(), id: z.string(), exit_code: z.number().int().nullable() }), "The result as recorded"),
        404: errorResponse("not_found: no such command for this lease"),
        ...AGENT_ERRORS,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { exit_code, output } = c.req.valid("json");
      const { recorded, command } = await agentCall(c, { op: "result", id, exit_code, output });
      return c.json({ recorded, id: command.id, exit_code: command.exit_code }, 200);
    },
  );

// ---- data in and out (docs/artifacts.md) ---------------------------------------------------------

/** The token is the lease's and the lease not released: where the agent's bytes go. */
async function storageTarget(c: Context<AppEnv>, path: string) {
  const { org_id } = await agentCall(c, { op: "storage" });
  return { org_id, lease_id: c.req.header(LEASE_ID_HEADER)!, path };
}

const STORE_ERRORS = {
  400: errorResponse("invalid_request; invalid_path; checksum_mismatch: the bytes' SHA-256 is not Lessor-Sha256 (nothing stored); invalid_part", [
    "invalid_request",
    "invalid_path",
    "checksum_mismatch",
    "invalid_part",
  ]),
  404: errorResponse("not_found: no such upload of this lease and path", ["not_found"]),
  409: errorResponse("storage_quota_exceeded: the org's quota (details: limit_bytes, used_bytes); parts_missing (details: missing)", ["storage_quota_exceeded", "parts_missing"]),
  413: errorResponse("file_too_large, lease_artifacts_full, payload_too_large: a cap (details: limit_bytes)", ["file_too_large", "lease_artifacts_full", "payload_too_large"]),
} as const;

const FileSchema = z.strictObject({
  size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  sha256: z.string().regex(SHA256_HEX),
});

const PartsSchema = z
  .object({
    upload_id: z.string(),
    path: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    part_size: z.number().int(),
    parts: z.number().int().describe("how many parts the file goes up in"),
    stored: z.array(z.object({ part: z.number().int(), size: z.number().int(), sha256: z.string() })).describe("the parts stored so far"),
  })
  .openapi("ArtifactUpload");

const ArtifactPath = z.object({ path: z.string().openapi({ param: { name: "path", in: "path" }, example: "checkpoints/model.pt" }) });
const PartQuery = z.object({ upload_id: z.string().max(64).optional(), part: z.coerce.number().int().min(1).max(MAX_PARTS).optional() });

agentRoutes
  .openapi(
    createRoute({
      method: "get",
      path: "/agent/workdir",
      summary: "The lease's workdir bundle (tar.gz), with Lessor-Sha256; 404 no_workdir when it has none",
      security: LEASE_TOKEN,
      middleware: [requireLeaseToken] as const,
      request: { headers: z.object(LeaseIdHeader) },
      responses: {
        200: { description: "The bundle", content: { "application/gzip": { schema: z.string().openapi({ format: "binary" }) } } },
        ...AGENT_ERRORS,
        404: errorResponse("no_workdir: the lease was created without one", ["no_workdir"]),
      },
    }),
    async (c) => {
      const t = await storageTarget(c, "");
      const found = await workdirOf(c.env, t.org_id, t.lease_id);
      if (!found) throw new ApiError(404, "no_workdir", "the lease was created without a workdir");
      return c.body(found.object.body, 200, { "content-type": "application/gzip", "content-length": String(found.upload.size), [SHA_HEADER]: found.upload.sha256 });
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/agent/outputs",
      summary: "The outputs' manifest: what every file under LESSOR_OUT is; `outputs_uploaded` comes when all are stored",
      security: LEASE_TOKEN,
      middleware: [requireLeaseToken] as const,
      request: withJson(z.strictObject({ files: z.array(FileSchema.extend({ path: z.string() })).max(MANIFEST_MAX_FILES) }).openapi("OutputsManifest")),
      responses: {
        200: jsonResponse(z.object({ files: z.number().int(), bytes: z.number().int(), missing_count: z.number().int() }), "Kept"),
        ...AGENT_ERRORS,
        400: errorResponse("invalid_request; invalid_path: a path (details.field)", ["invalid_request", "invalid_path"]),
      },
    }),
    async (c) => {
      const { files } = c.req.valid("json");
      for (const f of files) checkPath(f.path);
      if (new Set(files.map((f) => f.path)).size !== files.length) throw new ApiError(400, "invalid_request", "a path is named once");
      const { outputs } = await agentCall(c, { op: "outputs", files: files.map((f) => ({ ...f, sha256: f.sha256.toLowerCase() })) });
      return c.json({ files: outputs.files, bytes: outputs.bytes, missing_count: outputs.missing_count }, 200);
    },
  );

agentRoutes.openAPIRegistry.registerPath({
  method: "put",
  path: "/agent/artifacts/{path}",
  summary: `One file of at most ${PART_SIZE} bytes, or with upload_id and part one part of a bigger one`,
  security: LEASE_TOKEN,
  request: {
    params: ArtifactPath,
    query: PartQuery,
    headers: z.object({ ...LeaseIdHeader, ...RawHeaders }),
    body: { content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } }, required: true },
  },
  responses: { 200: jsonResponse(z.union([ArtifactSchema, PartsSchema]), "Stored: the artifact, or the upload's parts"), ...AGENT_ERRORS, ...STORE_ERRORS },
});
agentRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/agent/artifacts/{path}",
  summary: "`?uploads`: begin a multipart upload of {size, sha256}; `?upload_id=&complete`: end it, the whole file's digest checked",
  security: LEASE_TOKEN,
  request: {
    params: ArtifactPath,
    query: z.object({ uploads: z.string().optional(), upload_id: z.string().max(64).optional(), complete: z.string().optional() }),
    headers: z.object(LeaseIdHeader),
    body: { content: { "application/json": { schema: FileSchema.openapi("ArtifactFile") } }, required: true },
  },
  responses: {
    200: jsonResponse(z.union([ArtifactSchema, PartsSchema]), "Completed: the artifact"),
    201: jsonResponse(z.union([ArtifactSchema, PartsSchema]), "Begun: the upload"),
    ...AGENT_ERRORS,
    ...STORE_ERRORS,
  },
});
agentRoutes.openAPIRegistry.registerPath({
  method: "get",
  path: "/agent/artifacts/{path}",
  summary: "A multipart upload's stored parts, to resume from",
  security: LEASE_TOKEN,
  request: { params: ArtifactPath, query: z.object({ upload_id: z.string().max(64) }), headers: z.object(LeaseIdHeader) },
  responses: { 200: jsonResponse(PartsSchema, "The upload"), ...AGENT_ERRORS, ...STORE_ERRORS },
});

const ARTIFACT_PATH = "/agent/artifacts/:path{[\\s\\S]+}";

agentRoutes.put(ARTIFACT_PATH, requireLeaseToken, async (c) => {
  const path = pathParam(c);
  const q = parsed(PartQuery, c.req.query());
  const limits = storageLimits(c.env);
  if (q.upload_id !== undefined && q.part !== undefined) {
    const { size, sha256, body } = rawBody(c, PART_SIZE, (limit) => tooLarge("payload_too_large", `a part is at most ${limit} bytes`, limit));
    const t = await storageTarget(c, path);
    return c.json(await storePart(c.env, t, q.upload_id, q.part, body, size, sha256), 200);
  }
  if (q.upload_id !== undefined || q.part !== undefined) throw new ApiError(400, "invalid_request", "a part names both upload_id and part");
  const max = Math.min(PART_SIZE, limits.file_bytes);
  const { size, sha256, body } = rawBody(c, max, (limit) =>
    limit < PART_SIZE ? tooLarge("file_too_large", `a file is at most ${limit} bytes`, limit) : tooLarge("payload_too_large", `one PUT carries at most ${limit} bytes; send a bigger file in parts (?uploads)`, limit),
  );
  const t = await storageTarget(c, path);
  const stored = await storeArtifact(c.env, t, body, size, sha256, Date.now());
  await noteStored(c, stored);
  return c.json(stored, 200);
});

agentRoutes.post(ARTIFACT_PATH, requireLeaseToken, async (c) => {
  const path = pathParam(c);
  const q = parsed(z.object({ uploads: z.string().optional(), upload_id: z.string().max(64).optional(), complete: z.string().optional() }), c.req.query());
  const file = parsed(FileSchema, await c.req.json().catch(() => undefined));
  const sha256 = file.sha256.toLowerCase();
  if (q.uploads !== undefined && q.upload_id === undefined) {
    const t = await storageTarget(c, path);
    return c.json(await createMultipart(c.env, t, file.size, sha256, Date.now()), 201);
  }
  if (q.upload_id === undefined || q.complete === undefined) throw new ApiError(400, "invalid_request", "send ?uploads to begin, or ?upload_id=...&complete to end");
  const t = await storageTarget(c, path);
  const stored = await completeMultipart(c.env, t, q.upload_id, file.size, sha256, Date.now());
  await noteStored(c, stored);
  return c.json(stored, 200);
});

agentRoutes.get(ARTIFACT_PATH, requireLeaseToken, async (c) => {
  const path = pathParam(c);
  const q = parsed(z.object({ upload_id: z.string().max(64) }), c.req.query());
  return c.json(await listParts(c.env, await storageTarget(c, path), q.upload_id), 200);
});

/** Tells the lease's object a file is stored, for its manifest; refused (a release since), the file is stored all the same. */
async function noteStored(c: Context<AppEnv>, a: { path: string; size: number; sha256: string }): Promise<void> {
  await agentCall(c, { op: "stored", path: a.path, size: a.size, sha256: a.sha256 }).catch((e) => {
    if (!(e instanceof ApiError)) throw e;
  });
}

agentRoutes.openAPIRegistry.registerComponent("securitySchemes", "lease_token", {
  type: "http",
  scheme: "bearer",
  description: "A lease token (`lsl_...`; `lse_...` for /v1/agent/enroll), with the lease's id in `Lessor-Lease-Id`; accepted on /v1/agent/* only",
});
