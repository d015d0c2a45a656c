/**
 * The names of the providers lessor has an adapter for, written once: the spec's lane pins, the
 * registry (registry.ts) and the installation's settings check (../config.ts) all read them here.
 */
export const PROVIDER_NAMES = ["sim", "runpod", "vast", "lambda"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
/** The real clouds: each rents for an org only with that org's own key. */
export const CLOUD_PROVIDER_NAMES = ["runpod", "vast", "lambda"] as const satisfies readonly ProviderName[];

/**
 * Whether a provider is a simulated cloud, whose machines are the installation's own to drive (the
 * operator's routes under /v1/sim, docs/security.md "The bootstrap token acts on no org's machine"):
 * every provider but the real clouds.
 */
export function isSimulatedCloud(name: string): boolean {
  return !(CLOUD_PROVIDER_NAMES as readonly string[]).includes(name);
}

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}

/** The names LESSOR_PROVIDERS lists (default "sim"), trimmed and lowercased, in order, as written. */
export function listedProviderNames(setting: string | undefined): string[] {
  return (setting ?? "sim")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}
