/**
 * What `PUT /v1/deployments/:name` asks for, and its fingerprint: the model, spec, image and
 * engine arguments that make a machine serve it. A PUT with another fingerprint is a changed
 * configuration (409 `config_changed` unless `?recreate=true`); the policy is not in it, since it
 * changes no machine.
 */
import { z } from "@hono/zod-openapi";
import { checkModelPlacement, findModel, noPlacement, type Model } from "../catalog/models";
import { parseGpuToken, SpecSchema, type Spec } from "../catalog/spec";
import { badRequest } from "../errors";
import { sha256Hex } from "../ids";
import { PolicyInputSchema, type PolicyInput } from "../lease/policy";
import { MountsSchema, type MountRequest } from "../volumes/volumes";
import { ReplicasInputSchema, resolveReplicas, type ReplicasInput } from "./replicas";
import { parseDuration } from "../duration";

/** A model id as a model server lists it (`org/name`, a tag after `:` or `@`), at most 200 characters. */
export const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/;
/** At most this many engine arguments, each at most ENGINE_ARG_MAX characters. */
export const ENGINE_ARGS_MAX = 64;
export const ENGINE_ARG_MAX = 512;

export const DeploymentConfigSchema = z
  .strictObject({
    model: z
      .string()
      .regex(MODEL_ID, "a model id: letters, digits and . _ : / @ -, beginning with a letter or digit, at most 200 characters")
      .describe("a model of the catalog (GET /v1/catalog/models), in any letter case")
      .openapi({ example: "Qwen/Qwen2.5-0.5B-Instruct" }),
    spec: SpecSchema.optional(),
    policy: PolicyInputSchema.optional(),
    image: z.string().min(1).max(512).optional().describe("container image holding the model server (vLLM); pin it by digest (`@sha256:`)"),
    engine_args: z
      .array(z.string().min(1).max(ENGINE_ARG_MAX))
      .max(ENGINE_ARGS_MAX)
      .optional()
      .describe("more arguments for the model server, each one word (`--max-model-len`, `8192`); passed quoted, never read by a shell"),
    volumes: MountsSchema.optional(),
    replicas: ReplicasInputSchema.optional().describe("how many leases serve it and when the scaler adds or takes one away (docs/deployments.md \"Replicas\"); default {min: 1, max: 1}"),
  })
  .openapi("DeploymentConfig");

export type DeploymentConfig = z.infer<typeof DeploymentConfigSchema>;

/** The stored configuration, every optional field written out, so two PUTs of the same request compare equal. */
export interface StoredConfig {
  model: string;
  spec: Spec;
  policy: PolicyInput | null;
  image: string | null;
  engine_args: string[];
  /** The volumes its machine mounts (docs/volumes.md); absent: none, as in configurations stored before volumes. */
  volumes?: MountRequest[];
  /** Its replicas' settings as asked (replicas.ts); absent: the default {min: 1, max: 1}. Not in the fingerprint. */
  replicas?: ReplicasInput;
}

/**
 * The request with its model found in the catalog (src/catalog/models.ts; 400 `unknown_model`)
 * and its spec checked against the model's floors (409 `no_placement`, naming what fits), or, with
 * none, the smallest placement that fits. Nothing is stored or rented before this passes.
 */
export function storedConfig(c: DeploymentConfig): StoredConfig {
  const model = findModel(c.model);
  if (!model) throw badRequest("unknown_model", `"${c.model}" is not in the model catalog (GET /v1/catalog/models)`, { field: "model" });
  if (c.replicas) resolveReplicas(c.replicas, null); // 400 for a min above max, before anything is stored
  return { model: model.id, spec: c.spec ? checkedSpec(model, c.spec) : defaultSpec(model), policy: c.policy ?? null, image: c.image ?? null, engine_args: c.engine_args ?? [], ...(c.volumes?.length ? { volumes: c.volumes } : {}), ...(c.replicas ? { replicas: c.replicas } : {}) };
}

/** The replicas' settings a stored configuration runs with (its policy's idle_timeout the default idle timeout). */
export function replicasOf(c: StoredConfig) {
  const idle = c.policy?.idle_timeout;
  return resolveReplicas(c.replicas, typeof idle === "string" ? parseDuration(idle) : null);
}

function checkedSpec(model: Model, spec: Spec): Spec {
  const placement = spec.gpu !== undefined ? parseGpuToken(spec.gpu) : spec.cpu !== undefined ? { cpu: spec.cpu } : null;
  if (placement === null) return spec; // minimums only: the selector's business
  const check = checkModelPlacement(model, placement);
  if (!check.ok) throw noPlacement(model, check);
  return spec;
}

/** The smallest GPU placement the model fits, else the CPU machine that serves it. */
function defaultSpec(model: Model): Spec {
  return model.fits[0] !== undefined ? { gpu: model.fits[0] } : { cpu: model.cpu_cores! };
}

/** JSON with every object's keys sorted: the same value always writes the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The fingerprint of what makes the machine: model, spec, image, engine arguments and volumes (not
 * the policy). A configuration without volumes has the fingerprint it had before there were any.
 */
export function configFingerprint(c: StoredConfig): Promise<string> {
  return sha256Hex(canonical({ model: c.model, spec: c.spec, image: c.image, engine_args: c.engine_args, ...(c.volumes?.length ? { volumes: c.volumes } : {}) }));
}
