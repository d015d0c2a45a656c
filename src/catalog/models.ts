/**
 * The model catalog: open models lessor serves with vLLM, what each needs of a machine, and the
 * GPU specs (and, for the small ones, the CPU machines) it fits. One table, like the GPU classes;
 * the memory floors are literals a reader can check, and test/unit/models.test.ts recomputes each
 * from the rule below.
 *
 * The rule (GB here is 2^30 bytes, the unit GPU memory is reported in):
 * - weights = parameters x bytes a parameter (`BYTES_PER_PARAM`: 2 for bf16; 4.5 bits for AWQ
 *   int4, its 4-bit weights plus the group scales and the unquantized embeddings);
 * - KV-cache allowance = one full sequence of `max_model_len` tokens, K and V at 2 bytes each:
 *   2 x layers x kv_heads x head_dim x 2 x max_model_len. vLLM refuses to start when its cache
 *   cannot hold one sequence of the served length, so this is the least that lets it start;
 *   `max_model_len` is the model's own context capped at `MAX_MODEL_LEN_CAP`, and a deployment
 *   must start vLLM with `--max-model-len` at most that;
 * - `min_vram_gb` = ceil((weights + KV allowance + `ACTIVATION_GB`) / `GPU_MEMORY_UTILIZATION`),
 *   the last being the share of each GPU vLLM takes by default;
 * - `min_host_ram_gb` = ceil(weights + KV allowance) + `HOST_OVERHEAD_GB`: the checkpoint passes
 *   through host memory as it loads, and on a CPU machine weights and cache live there.
 *
 * A GPU spec `class:count` fits when count x the class's VRAM is at least `min_vram_gb` and vLLM
 * can split the model over `count` GPUs (tensor parallelism needs the attention heads divisible by
 * the count, and the KV heads divisible by it or it by them). `fits` names, for each class, the
 * fewest GPUs of `TENSOR_PARALLEL_SIZES` that fit. A model of at most `CPU_MAX_PARAMS_B` billion
 * parameters also fits a CPU machine of `cpu_cores` vCPUs; a bigger one answers too slowly there.
 */
import { ApiError } from "../errors";
import { GPU_CLASS_NAMES, vramOf, type GpuClass } from "./gpu-classes";

export const GPU_MEMORY_UTILIZATION = 0.9;
export const ACTIVATION_GB = 1;
export const HOST_OVERHEAD_GB = 8;
export const MAX_MODEL_LEN_CAP = 8192;
export const TENSOR_PARALLEL_SIZES = [1, 2, 4, 8] as const;
export const CPU_MAX_PARAMS_B = 1.5;
/** vCPUs for a CPU placement: this many per started billion parameters. */
export const CPU_CORES_PER_B = 4;

const GB = 2 ** 30;
/** Bytes one KV-cache element takes (bf16/fp16, vLLM's default cache type). */
const KV_ELEMENT_BYTES = 2;

export const BYTES_PER_PARAM = { bf16: 2, "awq-int4": 4.5 / 8 } as const;
export type ModelVariant = keyof typeof BYTES_PER_PARAM;
export const MODEL_VARIANTS = Object.keys(BYTES_PER_PARAM) as [ModelVariant, ...ModelVariant[]];

/** A row as written: the model's published shape, and the floors the rule gives for it. */
export interface ModelRow {
  /** The Hugging Face repository, which is also the name vLLM serves the model under. */
  id: string;
  variant: ModelVariant;
  /** Parameters, in billions, as the model card states them. */
  params_b: number;
  layers: number;
  attention_heads: number;
  kv_heads: number;
  head_dim: number;
  /** The context the floors are computed for: the model's own, capped at `MAX_MODEL_LEN_CAP`. */
  max_model_len: number;
  min_vram_gb: number;
  min_host_ram_gb: number;
}

/** A row with the placements derived from it. */
export interface Model extends ModelRow {
  /** GPU specs (`class:count`) that fit, smallest total VRAM first, then in the classes' order. */
  fits: string[];
  /** vCPUs of a CPU machine that serves it; null: it is not served on CPU. */
  cpu_cores: number | null;
}

/** Smallest floor first. */
const MODEL_ROWS: readonly ModelRow[] = [
  { id: "Qwen/Qwen2.5-0.5B-Instruct", variant: "bf16", params_b: 0.49, layers: 24, attention_heads: 14, kv_heads: 2, head_dim: 64, max_model_len: 8192, min_vram_gb: 3, min_host_ram_gb: 10 },
  { id: "TinyLlama/TinyLlama-1.1B-Chat-v1.0", variant: "bf16", params_b: 1.1, layers: 22, attention_heads: 32, kv_heads: 4, head_dim: 64, max_model_len: 2048, min_vram_gb: 4, min_host_ram_gb: 11 },
  { id: "meta-llama/Llama-3.2-1B-Instruct", variant: "bf16", params_b: 1.24, layers: 16, attention_heads: 32, kv_heads: 8, head_dim: 64, max_model_len: 8192, min_vram_gb: 4, min_host_ram_gb: 11 },
  { id: "meta-llama/Llama-3.2-3B-Instruct", variant: "bf16", params_b: 3.21, layers: 28, attention_heads: 24, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 9, min_host_ram_gb: 15 },
  { id: "microsoft/Phi-3-mini-4k-instruct", variant: "bf16", params_b: 3.82, layers: 32, attention_heads: 32, kv_heads: 32, head_dim: 96, max_model_len: 4096, min_vram_gb: 11, min_host_ram_gb: 17 },
  { id: "mistralai/Mistral-7B-Instruct-v0.3", variant: "bf16", params_b: 7.25, layers: 32, attention_heads: 32, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 18, min_host_ram_gb: 23 },
  { id: "Qwen/Qwen2.5-7B-Instruct", variant: "bf16", params_b: 7.62, layers: 28, attention_heads: 28, kv_heads: 4, head_dim: 128, max_model_len: 8192, min_vram_gb: 18, min_host_ram_gb: 23 },
  { id: "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", variant: "bf16", params_b: 7.62, layers: 28, attention_heads: 28, kv_heads: 4, head_dim: 128, max_model_len: 8192, min_vram_gb: 18, min_host_ram_gb: 23 },
  { id: "meta-llama/Llama-3.1-8B-Instruct", variant: "bf16", params_b: 8.03, layers: 32, attention_heads: 32, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 19, min_host_ram_gb: 24 },
  { id: "google/gemma-2-9b-it", variant: "bf16", params_b: 9.24, layers: 42, attention_heads: 16, kv_heads: 8, head_dim: 256, max_model_len: 8192, min_vram_gb: 24, min_host_ram_gb: 28 },
  { id: "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", variant: "awq-int4", params_b: 70.55, layers: 80, attention_heads: 64, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 45, min_host_ram_gb: 48 },
  { id: "Qwen/Qwen2.5-72B-Instruct-AWQ", variant: "awq-int4", params_b: 72.71, layers: 80, attention_heads: 64, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 47, min_host_ram_gb: 49 },
  { id: "google/gemma-2-27b-it", variant: "bf16", params_b: 27.2, layers: 46, attention_heads: 32, kv_heads: 16, head_dim: 128, max_model_len: 8192, min_vram_gb: 61, min_host_ram_gb: 62 },
  { id: "Qwen/Qwen2.5-32B-Instruct", variant: "bf16", params_b: 32.76, layers: 64, attention_heads: 40, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 72, min_host_ram_gb: 72 },
  { id: "mistralai/Mixtral-8x7B-Instruct-v0.1", variant: "bf16", params_b: 46.7, layers: 32, attention_heads: 32, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 99, min_host_ram_gb: 96 },
  { id: "meta-llama/Llama-3.1-70B-Instruct", variant: "bf16", params_b: 70.55, layers: 80, attention_heads: 64, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 150, min_host_ram_gb: 142 },
  { id: "Qwen/Qwen2.5-72B-Instruct", variant: "bf16", params_b: 72.71, layers: 80, attention_heads: 64, kv_heads: 8, head_dim: 128, max_model_len: 8192, min_vram_gb: 155, min_host_ram_gb: 146 },
];

export function weightsGb(m: Pick<ModelRow, "params_b" | "variant">): number {
  return (m.params_b * 1e9 * BYTES_PER_PARAM[m.variant]) / GB;
}

export function kvCacheGb(m: Pick<ModelRow, "layers" | "kv_heads" | "head_dim" | "max_model_len">): number {
  return (2 * m.layers * m.kv_heads * m.head_dim * KV_ELEMENT_BYTES * m.max_model_len) / GB;
}

/** The rule for `min_vram_gb` (see the top of this file). */
export function vramFloorGb(m: ModelRow): number {
  return Math.ceil((weightsGb(m) + kvCacheGb(m) + ACTIVATION_GB) / GPU_MEMORY_UTILIZATION);
}

/** The rule for `min_host_ram_gb` (see the top of this file). */
export function hostRamFloorGb(m: ModelRow): number {
  return Math.ceil(weightsGb(m) + kvCacheGb(m)) + HOST_OVERHEAD_GB;
}

/** Whether vLLM can split the model over `count` GPUs by tensor parallelism. */
export function splitsOver(m: Pick<ModelRow, "attention_heads" | "kv_heads">, count: number): boolean {
  return m.attention_heads % count === 0 && (m.kv_heads % count === 0 || count % m.kv_heads === 0);
}

function gpuFits(m: ModelRow): string[] {
  const fits: Array<{ spec: string; vram: number; order: number }> = [];
  GPU_CLASS_NAMES.forEach((gpu, order) => {
    const count = TENSOR_PARALLEL_SIZES.find((n) => n * vramOf(gpu) >= m.min_vram_gb && splitsOver(m, n));
    if (count !== undefined) fits.push({ spec: `${gpu}:${count}`, vram: count * vramOf(gpu), order });
  });
  return fits.sort((a, b) => a.vram - b.vram || a.order - b.order).map((f) => f.spec);
}

function cpuCoresOf(m: ModelRow): number | null {
  return m.params_b <= CPU_MAX_PARAMS_B ? CPU_CORES_PER_B * Math.ceil(m.params_b) : null;
}

export const MODELS: readonly Model[] = MODEL_ROWS.map((row) => ({ ...row, fits: gpuFits(row), cpu_cores: cpuCoresOf(row) }));

/** The model a name stands for: a Hugging Face repository id, in any letter case. */
export function findModel(id: string): Model | null {
  const wanted = id.trim().toLowerCase();
  return MODELS.find((m) => m.id.toLowerCase() === wanted) ?? null;
}

/** A GPU spec (`l40s:2`, as `parseGpuToken` reads it), or a CPU machine of `cpu` vCPUs. */
export type ModelPlacement = { gpu: GpuClass; count: number } | { cpu: number };

export type PlacementCheck =
  | { ok: true }
  | {
      ok: false;
      code: "no_placement";
      /**
       * `below_vram_floor`: the GPUs hold less than `min_vram_gb`; `not_splittable`: enough memory,
       * but vLLM cannot split the model over that many GPUs; `no_cpu_placement`: the model is not
       * served on CPU; `too_few_cores`: fewer vCPUs than `cpu_cores`.
       */
      reason: "below_vram_floor" | "not_splittable" | "no_cpu_placement" | "too_few_cores";
      /** What was asked, as `class:count` or `cpu:N`. */
      asked: string;
      fits: string[];
      cpu_cores: number | null;
    };

/** Whether `model` can be served on `placement` (the rule at the top of this file). */
export function checkModelPlacement(model: Model, placement: ModelPlacement): PlacementCheck {
  const fail = (reason: Extract<PlacementCheck, { ok: false }>["reason"], asked: string): PlacementCheck => ({
    ok: false,
    code: "no_placement",
    reason,
    asked,
    fits: model.fits,
    cpu_cores: model.cpu_cores,
  });
  if ("cpu" in placement) {
    const asked = `cpu:${placement.cpu}`;
    if (model.cpu_cores === null) return fail("no_cpu_placement", asked);
    return placement.cpu >= model.cpu_cores ? { ok: true } : fail("too_few_cores", asked);
  }
  const asked = `${placement.gpu}:${placement.count}`;
  if (placement.count * vramOf(placement.gpu) < model.min_vram_gb) return fail("below_vram_floor", asked);
  return splitsOver(model, placement.count) ? { ok: true } : fail("not_splittable", asked);
}

/** How a route documents the code in its 409 (functions/context.ts `errorResponse`). */
export const NO_PLACEMENT_DOC =
  "no_placement: the model does not fit the spec's machine (details: model, asked, reason, min_vram_gb, fits, cpu_cores; `GET /v1/catalog/models`)";

/** The 409 `no_placement` a placement failure becomes; its message names what would fit. */
export function noPlacement(model: Model, failure: Extract<PlacementCheck, { ok: false }>): ApiError {
  const why = {
    below_vram_floor: `needs ${model.min_vram_gb} GB of GPU memory, more than ${failure.asked} has`,
    not_splittable: `cannot be split over the GPUs of ${failure.asked} (${model.attention_heads} attention heads)`,
    no_cpu_placement: "is not served on a CPU machine",
    too_few_cores: `needs ${model.cpu_cores} vCPUs on a CPU machine, more than ${failure.asked} has`,
  }[failure.reason];
  const options = [...failure.fits, ...(failure.cpu_cores === null ? [] : [`cpu:${failure.cpu_cores}`])];
  return new ApiError(409, "no_placement", `${model.id} ${why}; it fits ${options.join(", ")}`, {
    model: model.id,
    asked: failure.asked,
    reason: failure.reason,
    min_vram_gb: model.min_vram_gb,
    fits: failure.fits,
    cpu_cores: failure.cpu_cores,
  });
}
