/** A deployment as the API answers it (src/deployments/deployments.ts `renderDeployment`). */
import { z } from "@hono/zod-openapi";
import { LEASE_STATES } from "../lease/state";
import { sameShape } from "../same-shape";
import type { DeploymentView } from "./deployments";
import { SLEEP_MODES } from "./replicas";

const ReplicaSchema = z.object({
  lease_id: z.string(),
  primary: z.boolean().describe("the deployment's own lease (`lease_id`): asleep rather than gone at zero replicas"),
  state: z.enum(["starting", "ready", "stopped", "gone", "draining"]).describe("`ready`: sent requests; `starting` and `draining` (finishing its requests before it is released) are sent none"),
  lease_state: z.enum(LEASE_STATES).nullable(),
  in_flight: z.number().int(),
  failures: z.number().int().describe("5xx answers or failed sends in a row; at 5 it is replaced"),
});

const ScalerSchema = z
  .object({
    replicas: z.array(ReplicaSchema),
    in_flight: z.number().int(),
    queued: z.number().int().describe("requests held in the gateway for want of a ready replica"),
    desired: z.number().int().describe("the replicas the load asks for now"),
    next: z.object({
      action: z.enum(["add", "drain", "release", "wake", "sleep", "replace", "forget", "none"]),
      reason: z.string(),
      at: z.string().nullable().describe("when, if later than now"),
    }),
    events: z
      .array(z.object({ at: z.string(), action: z.string(), lease_id: z.string().nullable(), reason: z.string(), detail: z.string() }))
      .describe("the last scale events, newest first, each with its reason"),
  })
  .openapi("DeploymentScaler");

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
    replicas: z
      .object({
        min: z.number().int(),
        max: z.number().int(),
        target_inflight: z.number().int(),
        idle_timeout: z.string(),
        scale_down_delay: z.string(),
        drain_timeout: z.string(),
        sleep: z.enum(SLEEP_MODES),
      })
      .describe("its replicas' settings, every field filled in"),
    scaler: ScalerSchema.nullable().describe("its replicas as they are and what the scaler will do next and why; null until its object has heard of it (a PUT or a request)"),
  })
  .openapi("Deployment");

sameShape<z.infer<typeof DeploymentSchema>, DeploymentView>(true);
