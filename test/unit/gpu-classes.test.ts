import { describe, expect, it } from "vitest";
import { classifyGpu, GPU_CLASS_NAMES, GPU_CLASSES } from "../../src/catalog/gpu-classes";

describe("GPU classes", () => {
  it("has at least the classes the catalog promises, with their VRAM", () => {
    const expected: Record<string, number> = {
      t4: 16, l4: 24, a10: 24, a10g: 24, l40: 48, l40s: 48, a40: 48, "rtx-a6000": 48, rtx4090: 24,
      rtx5090: 32, rtxpro6000: 96, "a100-40gb": 40, "a100-80gb": 80, h100: 80, "h100-nvl": 94,
      h200: 141, b200: 180, mi300x: 192,
    };
    for (const [name, vram] of Object.entries(expected)) {
      expect(GPU_CLASS_NAMES).toContain(name);
      expect(GPU_CLASSES[name as keyof typeof GPU_CLASSES].vram_gb).toBe(vram);
    }
  });
});

describe("classifyGpu: providers' spellings", () => {
  const cases: Array<[string, number | null, string | null]> = [
    // [provider spelling, provider-stated memory (GB or MiB) or null, class]
    ["NVIDIA L40S", null, "l40s"],
    ["L40S", 48, "l40s"],
    ["NVIDIA L40", null, "l40"],
    ["NVIDIA L4", null, "l4"],
    ["gpu_1x_l4", null, "l4"],
    ["RTX PRO 6000 Blackwell", null, "rtxpro6000"],
    ["NVIDIA RTX PRO 6000 Blackwell Server Edition", 96, "rtxpro6000"],
    ["A100 80GB PCIe", null, "a100-80gb"],
    ["A100-SXM4-80GB", null, "a100-80gb"],
    ["NVIDIA A100 80GB", null, "a100-80gb"],
    ["A100 PCIe", 40960, "a100-40gb"],
    ["A100 SXM4", 81920, "a100-80gb"],
    ["NVIDIA A100-SXM4-40GB", null, "a100-40gb"],
    ["gpu_8x_a100_80gb_sxm4", null, "a100-80gb"],
    ["H100 SXM5", null, "h100"],
    ["NVIDIA H100 80GB HBM3", null, "h100"],
    ["H100 PCIe", null, "h100"],
    ["gpu_8x_h100_sxm5", null, "h100"],
    ["NVIDIA H100 NVL", null, "h100-nvl"],
    ["H100 NVL", 94, "h100-nvl"],
    ["NVIDIA H200", null, "h200"],
    ["H200 SXM 141GB", null, "h200"],
    ["NVIDIA B200", null, "b200"],
    ["NVIDIA GH200 480GB", null, "gh200"],
    ["GeForce RTX 4090", null, "rtx4090"],
    ["NVIDIA GeForce RTX 4090", 24, "rtx4090"],
    ["RTX 4090", null, "rtx4090"],
    ["RTX 5090", null, "rtx5090"],
    ["GeForce RTX 3090", null, "rtx3090"],
    ["NVIDIA RTX A6000", null, "rtx-a6000"],
    ["RTX A6000", null, "rtx-a6000"],
    ["RTX 6000 Ada", null, "rtx6000-ada"],
    ["NVIDIA RTX 6000 Ada Generation", null, "rtx6000-ada"],
    ["RTX A5000", null, "rtx-a5000"],
    ["RTX A4000", null, "rtx-a4000"],
    ["Tesla T4", null, "t4"],
    ["NVIDIA A10G", null, "a10g"],
    ["A10G", null, "a10g"],
    ["NVIDIA A10", null, "a10"],
    ["gpu_1x_a10", null, "a10"],
    ["NVIDIA A40", null, "a40"],
    ["AMD Instinct MI300X", null, "mi300x"],
    ["MI300X", 192, "mi300x"],
    // Never guessed:
    ["A100", null, null],
    ["NVIDIA A100 PCIe", null, null],
    ["Quadro RTX 8000", null, null],
    ["RTX 4000 Ada", null, null],
    ["Quadro RTX 6000", null, null],
    ["Tesla V100", null, null],
    ["", null, null],
    ["GTX 1080 Ti", null, null],
  ];
  it.each(cases)("%s (memory %s) -> %s", (name, mem, cls) => {
    expect(classifyGpu(name, mem)).toBe(cls);
  });
});
