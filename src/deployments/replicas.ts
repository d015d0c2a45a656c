/**
 * A deployment's replicas (issue 32, docs/deployments.md "Replicas"): how many leases serve it and
 * when the scaler adds or takes one away. Not in the fingerprint: a change of them makes no
 * machine differently, it changes how many there are.
 */
import { z } from "@hono/zod-openapi";
import { DurationSchema, parseDuration } from "../duration";
import { badRequest } from "../errors";

/** The most replicas one deployment may have (each is a lease, counted against every cap). */
export const MAX_REPLICAS = 16;
/** The most requests one replica is given before the scaler wants another. */
export const MAX_TARGET_INFLIGHT = 1_000;

export const REPLICA_DEFAULTS = {
  min: 1,
  max: 1,
  target_inflight: 8,
  /** With no request this long (and none in flight), the replicas go down to `min`; with `min: 0`, to none. */
  idle_timeout_ms: 30 * 60_000,
  /** How long fewer replicas must be enough before one is taken away (no flapping). */
  scale_down_delay_ms: 60_000,
  /** The most a draining replica is given to finish its in-flight requests before it is released. */
  drain_timeout_ms: 5 * 60_000,
  /** What the last replica does at zero: `stop` (its disk kept, a quicker wake) or `release`. */
  sleep: "stop" as "stop" | "release",
};

export const SLEEP_MODES = ["stop", "release"] as const;

export const ReplicasInputSchema = z
  .strictObject({
    min: z.number().int().min(0).max(MAX_REPLICAS).optional().describe("replicas kept while the deployment is in use (0: it scales to zero after idle_timeout); default 1"),
    max: z.number().int().min(1).max(MAX_REPLICAS).optional().describe(`the most replicas (at most ${MAX_REPLICAS}); default 1, or min when min is more`),
    target_inflight: z.number().int().min(1).max(MAX_TARGET_INFLIGHT).optional().describe("requests in flight per replica the scaler aims at; default 8"),
    idle_timeout: DurationSchema.optional().describe("with no request this long the replicas go down to min (to none with min 0); default the policy's idle_timeout, else 30m"),
    scale_down_delay: DurationSchema.optional().describe("how long fewer replicas must be enough before one is taken away; default 60s"),
    drain_timeout: DurationSchema.optional().describe("the most a replica being taken away is given to finish its requests (streams included); default 5m"),
    sleep: z.enum(SLEEP_MODES).optional().describe("at zero replicas the last one is `stop`ped (default) or `release`d"),
  })
  .openapi("ReplicasInput");
export type ReplicasInput = z.infer<typeof ReplicasInputSchema>;

/** The replicas' settings in ms, every field filled in. */
export interface Replicas {
  min: number;
  max: number;
  target_inflight: number;
  idle_timeout_ms: number;
  scale_down_delay_ms: number;
  drain_timeout_ms: number;
  sleep: "stop" | "release";
}

const ms = (text: string | undefined): number | undefined => (text === undefined ? undefined : parseDuration(text)!);

/**
 * The settings a deployment runs with. `policyIdleMs`: its lease policy's idle_timeout (null: none
 * set), the idle timeout when `replicas` names none. A `min` above `max` is 400.
 */
export function resolveReplicas(input: ReplicasInput | undefined | null, policyIdleMs: number | null | undefined): Replicas {
  const r = input ?? {};
  const min = r.min ?? REPLICA_DEFAULTS.min;
  const max = r.max ?? Math.max(REPLICA_DEFAULTS.max, min);
  if (min > max) throw badRequest("invalid_request", `replicas.min (${min}) is more than replicas.max (${max})`, { field: "replicas.min" });
  return {
    min,
    max,
    target_inflight: r.target_inflight ?? REPLICA_DEFAULTS.target_inflight,
    idle_timeout_ms: ms(r.idle_timeout) ?? policyIdleMs ?? REPLICA_DEFAULTS.idle_timeout_ms,
    scale_down_delay_ms: ms(r.scale_down_delay) ?? REPLICA_DEFAULTS.scale_down_delay_ms,
    drain_timeout_ms: ms(r.drain_timeout) ?? REPLICA_DEFAULTS.drain_timeout_ms,
    sleep: r.sleep ?? REPLICA_DEFAULTS.sleep,
  };
}
