/** A duration in a request body: the rule itself is src/duration-text.ts. */
import { z } from "@hono/zod-openapi";
import { DURATION_PATTERN, MAX_DURATION_MS, parseDuration, UNIT_MS } from "./duration-text";

export { formatDuration, MAX_DURATION_MS, parseDuration } from "./duration-text";

/**
 * A duration in a request: the OpenAPI component `Duration`, with its pattern. A text that is not
 * one fails validation with the code `invalid_duration` (functions/context.ts reads `api_code`).
 */
export const DurationSchema = z
  .string()
  .max(16)
  .refine((text) => parseDuration(text) !== null, {
    message: `not a duration; write 90s, 15m, 2h or 1d, at most ${MAX_DURATION_MS / UNIT_MS.d}d`,
    params: { api_code: "invalid_duration" },
  })
  .openapi("Duration", {
    type: "string",
    pattern: DURATION_PATTERN.source,
    description: `a duration: \`90s\`, \`15m\`, \`2h\`, \`1d\`; at most ${MAX_DURATION_MS / UNIT_MS.d} days`,
    example: "2h",
  });
