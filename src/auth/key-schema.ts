/** An API key as the API answers it (`renderKey`), as a schema for the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { sameShape } from "../same-shape";
import type { renderKey } from "./keys";
import { SCOPES } from "./principal";

export const KeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe("the first characters of the secret, to recognise it by"),
    scope: z.enum(SCOPES),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKey");

sameShape<z.infer<typeof KeySchema>, ReturnType<typeof renderKey>>(true);
