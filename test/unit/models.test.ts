import { describe, expect, it } from "vitest";
import { GPU_CLASS_NAMES, vramOf, type GpuClass } from "../../src/catalog/gpu-classes";
import {
  checkModelPlacement,
  findModel,
  hostRamFloorGb,
  MAX_MODEL_LEN_CAP,
  MODEL_VARIANTS,
  MODELS,
  noPlacement,
  TENSOR_PARALLEL_SIZES,
  vramFloorGb,
  type Model,
} from "../../src/catalog/models";

function model(id: string): Model {
  const m = findModel(id);
  if (!m) throw new Error(`${id} is not in the catalog`);
  return m;
}

function failure(m: Model, placement: Parameters<typeof checkModelPlacement>[1]) {
  const check = checkModelPlacement(m, placement);
  if (check.ok) throw new Error("expected no_placement");
  return check;
}

const spec = (s: string) => {
  const [gpu, count] = s.split(":");
  return { gpu: gpu as GpuClass, count: Number(count) };
};

describe("the model table", () => {
  it("has at least 12 models, each id once in any letter case, each of a known variant", () => {
    expect(MODELS.length).toBeGreaterThanOrEqual(12);
    expect(new Set(MODELS.map((m) => m.id.toLowerCase())).size).toBe(MODELS.length);
    for (const m of MODELS) {
      expect(MODEL_VARIANTS, m.id).toContain(m.variant);
      expect(m.id, "a Hugging Face repository id").toMatch(/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/);
    }
    const floors = MODELS.map((m) => m.min_vram_gb);
    expect([...floors].sort((a, b) => a - b), "smallest floor first").toEqual(floors);
  });

  it.each(MODELS.map((m) => [m.id, m] as const))("%s: its floors follow the rule and its context is capped", (_, m) => {
    expect(m.min_vram_gb).toBe(vramFloorGb(m));
    expect(m.min_host_ram_gb).toBe(hostRamFloorGb(m));
    expect(m.max_model_len).toBeLessThanOrEqual(MAX_MODEL_LEN_CAP);
  });

  it.each(MODELS.map((m) => [m.id, m] as const))("%s: each fit is the fewest GPUs of its class that hold it; a class left out holds it at no size", (_, m) => {
    const listed = new Map(m.fits.map((f) => [f.split(":")[0], Number(f.split(":")[1])]));
    for (const gpu of GPU_CLASS_NAMES) {
      const sizes = TENSOR_PARALLEL_SIZES.filter((n) => checkModelPlacement(m, { gpu, count: n }).ok);
      expect(listed.get(gpu), gpu).toBe(sizes[0]);
    }
    const totals = m.fits.map((f) => spec(f).count * vramOf(spec(f).gpu));
    expect([...totals].sort((a, b) => a - b), "smallest total VRAM first").toEqual(totals);
  });

  it("a few placements a reader can check by hand", () => {
    expect(model("meta-llama/Llama-3.1-8B-Instruct").fits).toEqual(expect.arrayContaining(["l4:1", "t4:2", "h100:1"]));
    expect(model("meta-llama/Llama-3.1-70B-Instruct").fits).toEqual(expect.arrayContaining(["a100-80gb:2", "h100:2", "b200:1", "a100-40gb:4"]));
    expect(model("meta-llama/Llama-3.1-70B-Instruct").fits.some((f) => f.startsWith("t4:"))).toBe(false);
    expect(model("Qwen/Qwen2.5-72B-Instruct-AWQ").fits).toContain("l40s:1");
    expect(model("Qwen/Qwen2.5-0.5B-Instruct").fits[0]).toBe("t4:1");
  });

  it("only the small models are served on CPU", () => {
    expect(model("Qwen/Qwen2.5-0.5B-Instruct").cpu_cores).toBe(4);
    expect(model("TinyLlama/TinyLlama-1.1B-Chat-v1.0").cpu_cores).toBe(8);
    expect(model("meta-llama/Llama-3.2-1B-Instruct").cpu_cores).toBe(8);
    expect(model("meta-llama/Llama-3.2-3B-Instruct").cpu_cores).toBeNull();
    expect(MODELS.filter((m) => m.cpu_cores !== null).length).toBeGreaterThanOrEqual(2);
  });
});

describe("findModel", () => {
  it.each([
    ["Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"],
    ["qwen/qwen2.5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct"],
    [" meta-llama/Llama-3.1-8B-Instruct ", "meta-llama/Llama-3.1-8B-Instruct"],
  ])("%j is %s", (asked, id) => {
    expect(findModel(asked)?.id).toBe(id);
  });

  it.each(["Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B", "", "meta-llama/Llama-3.1-8B-Instruct/extra", "gpt-4"])("%j is no model", (asked) => {
    expect(findModel(asked)).toBeNull();
  });
});

describe("checkModelPlacement: the VRAM floor", () => {
  const base = model("meta-llama/Llama-3.1-70B-Instruct");
  // Every class and size: a model whose floor is exactly what the GPUs hold fits; one GB more does not.
  const cases = GPU_CLASS_NAMES.flatMap((gpu) => TENSOR_PARALLEL_SIZES.map((count) => [gpu, count] as const));
  it.each(cases)("%s:%i holds a floor of exactly its memory and not one GB more", (gpu, count) => {
    const total = count * vramOf(gpu);
    expect(checkModelPlacement({ ...base, min_vram_gb: total }, { gpu, count })).toEqual({ ok: true });
    const under = failure({ ...base, min_vram_gb: total + 1 }, { gpu, count });
    expect(under).toMatchObject({ code: "no_placement", reason: "below_vram_floor", asked: `${gpu}:${count}`, fits: base.fits });
  });

  it.each([
    // [model, at the floor (fits), under it (does not)]
    ["google/gemma-2-9b-it", "l4:1", "t4:1"], // floor 24
    ["meta-llama/Llama-3.1-70B-Instruct", "h100:2", "h100:1"], // floor 150
    ["mistralai/Mixtral-8x7B-Instruct-v0.1", "a100-80gb:2", "a100-80gb:1"], // floor 99
    ["hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "l40s:1", "rtx5090:1"], // floor 45
    ["Qwen/Qwen2.5-32B-Instruct", "a100-80gb:1", "rtx5090:2"], // floor 72
  ])("%s fits %s and not %s", (id, fits, under) => {
    const m = model(id);
    expect(checkModelPlacement(m, spec(fits))).toEqual({ ok: true });
    expect(failure(m, spec(under))).toEqual({ ok: false, code: "no_placement", reason: "below_vram_floor", asked: under, fits: m.fits, cpu_cores: m.cpu_cores });
  });

  it("more GPUs than the fewest still fit", () => {
    expect(checkModelPlacement(model("meta-llama/Llama-3.1-8B-Instruct"), spec("h100:8"))).toEqual({ ok: true });
  });
});

describe("checkModelPlacement: splitting over GPUs", () => {
  it.each([
    // [model, splits, does not split] over GPUs that hold its weights either way
    ["Qwen/Qwen2.5-7B-Instruct", "l4:4", "l4:8"], // 28 attention heads
    ["meta-llama/Llama-3.2-3B-Instruct", "t4:8", "t4:3"], // 24 attention heads, but 8 KV heads
    ["Qwen/Qwen2.5-0.5B-Instruct", "t4:2", "t4:4"], // 14 attention heads
    ["meta-llama/Llama-3.1-70B-Instruct", "a100-80gb:2", "a100-80gb:3"],
  ])("%s splits over %s and not %s", (id, splits, not) => {
    const m = model(id);
    expect(checkModelPlacement(m, spec(splits))).toEqual({ ok: true });
    expect(failure(m, spec(not)).reason).toBe("not_splittable");
  });
});

describe("checkModelPlacement: CPU machines", () => {
  it("a small model fits exactly its vCPUs and not one fewer", () => {
    const m = model("Qwen/Qwen2.5-0.5B-Instruct");
    expect(checkModelPlacement(m, { cpu: 4 })).toEqual({ ok: true });
    expect(checkModelPlacement(m, { cpu: 64 })).toEqual({ ok: true });
    expect(failure(m, { cpu: 3 })).toMatchObject({ reason: "too_few_cores", asked: "cpu:3", cpu_cores: 4 });
  });

  it("a big model is never placed on CPU", () => {
    expect(failure(model("meta-llama/Llama-3.1-8B-Instruct"), { cpu: 192 })).toMatchObject({ reason: "no_cpu_placement", cpu_cores: null });
  });
});

describe("noPlacement", () => {
  it("is a 409 whose message names every placement that fits", () => {
    const m = model("meta-llama/Llama-3.1-70B-Instruct");
    const e = noPlacement(m, failure(m, spec("l40s:2")));
    expect(e.status).toBe(409);
    expect(e.code).toBe("no_placement");
    expect(e.expose).toBe(true);
    expect(e.message).toContain("needs 150 GB of GPU memory, more than l40s:2 has");
    for (const f of m.fits) expect(e.message).toContain(f);
    expect(e.details).toEqual({ model: m.id, asked: "l40s:2", reason: "below_vram_floor", min_vram_gb: 150, fits: m.fits, cpu_cores: null });
  });

  it("names the CPU machine for a model served there", () => {
    const m = model("Qwen/Qwen2.5-0.5B-Instruct");
    const e = noPlacement(m, failure(m, { cpu: 2 }));
    expect(e.message).toContain("needs 4 vCPUs on a CPU machine, more than cpu:2 has");
    expect(e.message).toMatch(/t4:1, .*cpu:4$/);
  });

  it("says why a placement with enough memory does not split", () => {
    const m = model("Qwen/Qwen2.5-7B-Instruct");
    expect(noPlacement(m, failure(m, spec("l4:8"))).message).toContain("cannot be split over the GPUs of l4:8 (28 attention heads)");
  });
});
