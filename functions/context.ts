/** The Hono context every route shares: bindings, the request id and the caller. */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Principal } from "../src/auth/principal";
import type { Env } from "../src/env";
import type { Context } from "hono";
import { checkPath, SHA256_HEX } from "../src/artifacts/limits";
import { ApiError } from "../src/errors";

export interface AppEnv {
  Bindings: Env;
  Variables: { requestId: string; principal: Principal; now: number };
}

/** A sub-app whose validation failures become the one 400 envelope. */
export function router() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const issues = result.error.issues.map((i) => ({ path: i.path.join("."), code: i.code, message: i.message }));
        // A schema may name its own stable code for a failure (src/duration.ts: `invalid_duration`).
        for (const i of result.error.issues) {
          const code = i.code === "custom" ? i.params?.api_code : undefined;
          if (typeof code !== "string") continue;
          const field = i.path.join(".");
          throw new ApiError(400, code, `${field}: ${i.message}`, { field, issues });
        }
        throw new ApiError(400, "invalid_request", "the request does not match the schema", { issues });
      }
    },
  });
}

const ErrorBody = {
  message: z.string().describe("for people; a 5xx says only to quote the request_id"),
  details: z.record(z.string(), z.unknown()).describe("what the code's description names; empty on a 5xx"),
};

export const ErrorEnvelope = z
  .object({
    error: z.object({ code: z.string().openapi({ example: "invalid_request" }), ...ErrorBody }),
    request_id: z.string(),
  })
  .openapi("Error");

type Codes = readonly [string, ...string[]];

/**
 * An error answer and the codes it carries: the envelope's `code` is an enum of exactly these, so
 * a client can switch on it and an answer with any other code fails the response check
 * (test/support/response-check.ts). Without codes, any code (the 400s of validation).
 */
export function errorResponse(description: string, codes?: Codes) {
  const schema = codes
    ? z.object({ error: z.object({ code: z.enum(codes), ...ErrorBody }), request_id: z.string() })
    : ErrorEnvelope;
  return { description, content: { "application/json": { schema } } };
}

/** The error answers every authenticated route can give. */
export const COMMON_ERRORS = {
  400: errorResponse(
    "invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8",
  ),
  401: errorResponse("unauthenticated: no valid credential", ["unauthenticated"]),
  403: errorResponse("insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured", ["insufficient_scope", "bootstrap_disabled"]),
  404: errorResponse("not_found: no such object (or another org's)", ["not_found"]),
  413: errorResponse(`payload_too_large: the body is over the limit (details.max_bytes)`, ["payload_too_large"]),
  429: errorResponse("rate_limited: over a request budget or a daily cap (details.budget); see Retry-After", ["rate_limited"]),
} as const;

/** The 400 of every stream route (the lease's and the org's events, the lease's log). */
export const STREAM_400 = {
  400: errorResponse("invalid_request: the query does not match the schema; invalid_last_event_id: Last-Event-ID is not an event id", ["invalid_request", "invalid_last_event_id"]),
} as const;

/** The 429 of every stream route: the credential's request budget, or its or its org's open streams (src/auth/stream-slots.ts). */
export const STREAM_429 = {
  429: errorResponse(
    "rate_limited: over the credential's request budget, or its or its org's open streams (details.budget `streams`); see Retry-After",
    ["rate_limited"],
  ),
} as const;

export const BEARER = [{ bearer: [] }];

export const IdParam = (prefix: string) =>
  z.object({
    id: z
      .string()
      .min(1)
      .max(64)
      .openapi({ param: { name: "id", in: "path" }, example: `${prefix}_01jd0000000000000000000000` }),
  });

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

// ---- raw bodies and artifact paths (docs/artifacts.md): a bundle's upload, the agent's files --

export const SHA_HEADER = "lessor-sha256";

export const ArtifactSchema = z
  .object({
    path: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    created_at: z.string(),
    expires_at: z.string().nullable().describe("null until the lease's release"),
  })
  .openapi("Artifact");

/** The headers of a raw body: its digest and its length, both required (R2 stores what it knows the length of). */
export const RawHeaders = {
  [SHA_HEADER]: z.string().regex(SHA256_HEX).openapi({ description: "the body's SHA-256, 64 hex digits" }),
  "content-length": z.string().regex(/^[0-9]{1,15}$/),
};

/** A raw body's length and digest (the headers validated), at most `max` bytes (else `tooBig`). */
export function rawBody(c: Context<AppEnv>, max: number, tooBig: (limit: number) => ApiError) {
  const parsed = z.object(RawHeaders).safeParse({ [SHA_HEADER]: c.req.header(SHA_HEADER), "content-length": c.req.header("content-length") });
  if (!parsed.success || c.req.header("transfer-encoding")) {
    throw new ApiError(400, "invalid_request", "send Content-Length and Lessor-Sha256 (64 hex digits), and the body unchunked", {
      issues: parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  const size = Number(parsed.data["content-length"]);
  if (size > max) throw tooBig(max);
  return { size, sha256: parsed.data[SHA_HEADER].toLowerCase(), body: c.req.raw.body ?? new Blob([]).stream() };
}

/** A request's `{path}`, from the URL (percent-decoded by Hono), validated (400 invalid_path). */
export function pathParam(c: Context<AppEnv>): string {
  return checkPath(c.req.param("path") ?? "");
}

/** Validates `value` against `schema` as a route's validator would (400 invalid_request). */
export function parsed<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ path: i.path.join("."), code: i.code, message: i.message }));
  throw new ApiError(400, "invalid_request", "the request does not match the schema", { issues });
}

/** A raw body in the OpenAPI document. */
export const BINARY = z.string().openapi({ format: "binary" });
