/**
 * What a user asks for (docs/design.md "Words") and how its one free-text field, the GPU token, is read.
 * Parsing refuses to guess: a token that is not a known class or a `class-provider` lane pin is
 * an error that lists the known classes.
 */
import { z } from "@hono/zod-openapi";
import { badRequest } from "../errors";
import { PROVIDER_NAMES } from "../providers/names";
import { GPU_CLASS_NAMES, isGpuClass, type GpuClass } from "./gpu-classes";


const count = (what: string) => z.number().int().min(1).max(1024).describe(what);
const minimum = (what: string) => z.number().min(0).max(1_000_000).describe(what);
/** A minimum of a fact only some providers state: an offer that does not state it never passes. */
const stated = (what: string) => minimum(`${what}; an offer that does not state it never passes`);
const names = (what: string) => z.array(z.string().min(1).max(128)).max(64).describe(what);

export const SpecSchema = z
  .strictObject({
    gpu: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe("`class:count` (`l40s:2`), a lane pin `class-provider:count` (`l40s-sim:1`), or a bare class (count 1)"),
    cpu: count("a CPU-only machine with at least this many vCPUs").optional(),
    min_vram_gb: minimum("memory of each GPU, GB").optional(),
    min_gpus: count("at least this many GPUs").optional(),
    min_cpu: count("at least this many vCPUs").optional(),
    min_memory_gb: minimum("machine memory, GB").optional(),
    min_disk_gb: minimum("disk, GB").optional(),
    regions: names("only these regions").optional(),
    providers: names("only these providers").optional(),
    exclude_providers: names("never these providers").optional(),
    exclude_hosts: names("never these hosts").optional(),
    max_hourly_usd: z.number().positive().max(100_000).optional().describe("price ceiling per hour"),
    spot: z.boolean().optional().describe("true: spot (interruptible) offers only; false or absent: on-demand only"),
    min_cuda: z
      .number()
      .min(1)
      .max(100)
      .optional()
      .describe("the CUDA version the image needs (`12.8`): only hosts known to run it; an offer that does not state its CUDA never passes"),
    min_reliability: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("the least reliability score (0 to 1) the host's provider states for it; an offer that does not state one never passes"),
    min_inet_down_mbps: stated("the host's measured download speed, Mbps").optional(),
    min_inet_up_mbps: stated("the host's measured upload speed, Mbps").optional(),
    max_startup_s: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .optional()
      .describe(
        "the longest time from create to running, seconds, the offer's provider states for it; an offer that does not state one never passes (no real provider states one; the sim does)",
      ),
  })
  .openapi("Spec");

export type Spec = z.infer<typeof SpecSchema>;

export interface GpuToken {
  gpu: GpuClass;
  provider: string | null;
  count: number;
}

/** Reads `l40s`, `L40S:2`, `l40s-sim:1`, `a100-80gb-runpod:8`. */
export function parseGpuToken(raw: string): GpuToken {
  const token = raw.trim().toLowerCase();
  const [name = "", countText, ...rest] = token.split(":");
  const unknown = () =>
    badRequest("unknown_gpu", `"${raw}" is not a GPU class or a class-provider lane pin`, {
      known_classes: GPU_CLASS_NAMES,
      providers: PROVIDER_NAMES,
    });
  if (rest.length > 0) throw unknown();
  let count = 1;
  if (countText !== undefined) {
    if (!/^[1-9][0-9]{0,3}$/.test(countText)) {
      throw badRequest("invalid_gpu_count", `the GPU count in "${raw}" must be a whole number of at least 1`, {
        gpu: raw,
      });
    }
    count = Number(countText);
  }
  if (isGpuClass(name)) return { gpu: name, provider: null, count };
  for (const provider of PROVIDER_NAMES) {
    const suffix = `-${provider}`;
    if (name.endsWith(suffix)) {
      const cls = name.slice(0, -suffix.length);
      if (isGpuClass(cls)) return { gpu: cls, provider, count };
    }
  }
  throw unknown();
}

/** A spec must ask for something: a GPU, a CPU machine, or a minimum. */
export function assertSpecAsksForSomething(spec: Spec): void {
  if (spec.gpu !== undefined && spec.cpu !== undefined) {
    throw badRequest("invalid_spec", "a spec asks for `gpu` or `cpu`, not both");
  }
  const asks =
    spec.gpu ?? spec.cpu ?? spec.min_vram_gb ?? spec.min_gpus ?? spec.min_cpu ?? spec.min_memory_gb ?? spec.min_disk_gb;
  if (asks === undefined) {
    throw badRequest("invalid_spec", "a spec needs `gpu`, `cpu`, or at least one minimum");
  }
}
