/** An org as the API answers it (`renderOrg`), as a schema for the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { sameShape } from "../same-shape";
import type { renderOrg } from "./orgs";

export const OrgSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string() })
  .openapi("Org");

sameShape<z.infer<typeof OrgSchema>, ReturnType<typeof renderOrg>>(true);
