/** Which providers a spec may be chosen from for one org: the quote's and the lease's rule alike. */
import type { Db } from "../db";
import type { Env } from "../env";
import { ApiError } from "../errors";
import type { CapabilityName, ProviderCapabilities } from "../providers/contract";
import { configuredProviderNames, usableProviderNames } from "../providers/registry";
import type { Spec } from "./spec";

/**
 * The providers a spec may be chosen from for this org. A spec that names an enabled provider the
 * org cannot rent from (no key, or a key the provider refused) is answered plainly, not with a
 * `no_capacity` that would send the user looking for machines.
 */
export async function providersForSpec(env: Env, db: Db, orgId: string, spec: Pick<Spec, "providers">, options: { fresh?: boolean } = {}): Promise<string[]> {
  const usable = await usableProviderNames(env, db, orgId, options);
  const configured = new Set(configuredProviderNames(env));
  const blocked = (spec.providers ?? []).map((p) => p.toLowerCase()).filter((p) => configured.has(p) && !usable.includes(p));
  if (blocked.length > 0 && blocked.length === (spec.providers ?? []).length) {
    throw new ApiError(409, "provider_not_configured", `this org cannot rent from ${blocked.join(", ")}: store a working key with PUT /v1/providers/${blocked[0]}`, {
      providers: blocked,
    });
  }
  return usable;
}

/** What a lease needs of its provider: a command (or a model server) is run by lessor's agent, which needs `run_agent`. */
export function capabilitiesNeeded(lease: { cmd?: string | null; model?: unknown }): CapabilityName[] {
  return lease.cmd || lease.model ? ["run_agent"] : [];
}

/**
 * The candidate providers that have every capability needed, in their order. Pure. When there
 * were candidates and none has them, the lease cannot run anywhere it may be placed: 409
 * `capability_missing` naming what is missing, not a `no_capacity` that would send the user
 * looking for machines. No candidates at all is left to the caller's own answer.
 */
export function providersWithCapabilities(
  candidates: readonly string[],
  needed: readonly CapabilityName[],
  capabilitiesOf: (provider: string) => Readonly<ProviderCapabilities>,
): string[] {
  const able = candidates.filter((p) => needed.every((c) => capabilitiesOf(p)[c]));
  if (able.length === 0 && candidates.length > 0) {
    throw new ApiError(409, "capability_missing", `none of ${candidates.join(", ")} can ${needed.join(", ")}; a lease with a cmd needs a provider that runs lessor's agent`, {
      capabilities: [...needed],
      providers: [...candidates],
    });
  }
  return able;
}
