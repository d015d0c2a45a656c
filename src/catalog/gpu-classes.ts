/**
 * GPU classes: lessor's normalized GPU names, and the one place where a provider's spelling of a
 * GPU becomes one of them. A name that matches no rule is unclassified (null): the offer is left
 * out and counted, never guessed.
 */
export const GPU_CLASSES = {
  t4: { vram_gb: 16, vendor: "nvidia" },
  l4: { vram_gb: 24, vendor: "nvidia" },
  a10: { vram_gb: 24, vendor: "nvidia" },
  a10g: { vram_gb: 24, vendor: "nvidia" },
  "rtx-a4000": { vram_gb: 16, vendor: "nvidia" },
  "rtx-a5000": { vram_gb: 24, vendor: "nvidia" },
  rtx3090: { vram_gb: 24, vendor: "nvidia" },
  rtx4090: { vram_gb: 24, vendor: "nvidia" },
  rtx5090: { vram_gb: 32, vendor: "nvidia" },
  l40: { vram_gb: 48, vendor: "nvidia" },
  l40s: { vram_gb: 48, vendor: "nvidia" },
  a40: { vram_gb: 48, vendor: "nvidia" },
  "rtx-a6000": { vram_gb: 48, vendor: "nvidia" },
  "rtx6000-ada": { vram_gb: 48, vendor: "nvidia" },
  rtxpro6000: { vram_gb: 96, vendor: "nvidia" },
  "a100-40gb": { vram_gb: 40, vendor: "nvidia" },
  "a100-80gb": { vram_gb: 80, vendor: "nvidia" },
  h100: { vram_gb: 80, vendor: "nvidia" },
  "h100-nvl": { vram_gb: 94, vendor: "nvidia" },
  gh200: { vram_gb: 96, vendor: "nvidia" },
  h200: { vram_gb: 141, vendor: "nvidia" },
  b200: { vram_gb: 180, vendor: "nvidia" },
  mi300x: { vram_gb: 192, vendor: "amd" },
} as const satisfies Record<string, { vram_gb: number; vendor: string }>;

export type GpuClass = keyof typeof GPU_CLASSES;
export const GPU_CLASS_NAMES = Object.keys(GPU_CLASSES) as GpuClass[];

export function isGpuClass(name: string): name is GpuClass {
  return Object.hasOwn(GPU_CLASSES, name);
}

export function vramOf(gpu: GpuClass): number {
  return GPU_CLASSES[gpu].vram_gb;
}

/** Words that carry no class information in any provider's spelling. */
const NOISE = /\b(nvidia|geforce|tesla|amd|instinct|radeon|quadro|gpu|pcie|sxm[0-9]?|hbm[0-9e]*|nvlink|blackwell|server|edition|workstation|max-q)\b/g;

type Rule = readonly [RegExp, GpuClass | ((memGb: number | null) => GpuClass | null)];

/** Most specific first: `h100 nvl` before `h100`, `l40s` before `l40` before `l4`. */
const RULES: readonly Rule[] = [
  [/\bmi ?300 ?x\b/, "mi300x"],
  [/\bgh ?200\b/, "gh200"],
  [/\bb ?200\b/, "b200"],
  [/\bh ?200\b/, "h200"],
  [/\bh ?100\b.*\bnvl\b|\bnvl\b.*\bh ?100\b/, "h100-nvl"],
  [/\bh ?100\b/, "h100"],
  // An A100 comes in 40 and 80 GB; which one must be said, by the name or by the memory.
  [/\ba ?100\b/, (mem) => (mem === 80 ? "a100-80gb" : mem === 40 ? "a100-40gb" : null)],
  [/\brtx ?pro ?6000\b/, "rtxpro6000"],
  [/\brtx ?6000 ?ada\b|\b6000 ?ada\b/, "rtx6000-ada"],
  [/\b(rtx ?)?a ?6000\b/, "rtx-a6000"],
  [/\b(rtx ?)?a ?5000\b/, "rtx-a5000"],
  [/\b(rtx ?)?a ?4000\b/, "rtx-a4000"],
  [/\brtx ?5090\b/, "rtx5090"],
  [/\brtx ?4090\b/, "rtx4090"],
  [/\brtx ?3090\b/, "rtx3090"],
  [/\bl ?40 ?s\b/, "l40s"],
  [/\bl ?40\b/, "l40"],
  [/\bl ?4\b/, "l4"],
  [/\ba ?10 ?g\b/, "a10g"],
  [/\ba ?10\b/, "a10"],
  [/\ba ?40\b/, "a40"],
  [/\bt ?4\b/, "t4"],
];

/**
 * Maps a provider's GPU name ("NVIDIA L40S", "A100 80GB PCIe", "gpu_8x_h100_sxm5") to a class.
 * `memoryGb` is the provider's own figure for one GPU's memory, where it gives one; it settles
 * names that are ambiguous without it (A100).
 */
export function classifyGpu(name: string, memoryGb?: number | null): GpuClass | null {
  let text = name.toLowerCase().replace(/[_\-/,()]+/g, " ");
  // "80gb", "80 gb", "40g" state the memory in the name itself.
  let mem: number | null = null;
  text = text.replace(/\b([0-9]{2,3}) ?gb?\b/g, (_, n: string) => {
    mem = Number(n);
    return " ";
  });
  text = text.replace(/\b[0-9]+x\b/g, " ").replace(NOISE, " ").replace(/\s+/g, " ").trim();
  if (mem === null && memoryGb != null && Number.isFinite(memoryGb)) mem = nearestA100Memory(memoryGb);
  for (const [pattern, target] of RULES) {
    if (!pattern.test(text)) continue;
    return typeof target === "function" ? target(mem) : target;
  }
  return null;
}

/** Providers report usable memory (79.6, 81920 MiB, 40960): round to the sold size. */
function nearestA100Memory(memoryGb: number): number | null {
  const gb = memoryGb > 1024 ? memoryGb / 1024 : memoryGb;
  if (gb >= 70 && gb <= 90) return 80;
  if (gb >= 35 && gb <= 45) return 40;
  return null;
}
