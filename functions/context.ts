/** The Hono context every route shares: bindings, the request id and the caller. */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Principal } from "../src/auth/principal";
import type { Env } from "../src/env";
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

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
    request_id: z.string(),
  })
  .openapi("Error");

/** An error answer, described by the codes it carries. */
export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorEnvelope } },
});

/** The error answers every authenticated route can give. */
export const COMMON_ERRORS = {
  400: errorResponse(
    "invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named)",
  ),
  401: errorResponse("No valid credential"),
  403: errorResponse("The credential's scope does not allow this"),
  404: errorResponse("Not found (or another org's)"),
  429: errorResponse("Over the credential's request budget; see Retry-After"),
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
