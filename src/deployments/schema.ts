/** A deployment as the API answers it (src/deployments/deployments.ts `renderDeployment`). */
import { z } from "@hono/zod-openapi";
import { LEASE_STATES } from "../lease/state";
import { sameShape } from "../same-shape";
import type { DeploymentView } from "./deployments";

export const DeploymentSchema = z
  .object({
    name: z.string(),
    id: z.string().openapi({ example: "dp_01jd0000000000000000000000" }),
    state: z.enum(LEASE_STATES).describe("its lease's state: `ready` once the model answers; `pending` while the lease is being made"),
    lease_id: z.string(),
    base_url: z.string().nullable().describe("`{LESSOR_PUBLIC_URL}/v1/gateway/{id}/v1`, for any OpenAI client; null when the installation has no public URL"),
    api_key: z.string().nullable().describe("the deployment's own key for the gateway (43 URL-safe characters); null unless the credential has the `write` scope"),
    model: z.string(),
    hourly_usd: z.number().nullable().describe("what its machine bills an hour; null while its lease is being made"),
  })
  .openapi("Deployment");

sameShape<z.infer<typeof DeploymentSchema>, DeploymentView>(true);
