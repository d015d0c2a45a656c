/** Which providers this installation rents from, as adapters behind the one contract. */
import type { Env } from "../env";
import type { Provider } from "./contract";
import { SimProvider } from "./sim/adapter";

const FACTORIES: Record<string, (env: Env) => Provider> = {
  sim: (env) => new SimProvider(env),
};

export function configuredProviderNames(env: Env): string[] {
  const names = (env.LESSOR_PROVIDERS ?? "sim")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return names.filter((n) => Object.hasOwn(FACTORIES, n));
}

export function configuredProviders(env: Env): Provider[] {
  return configuredProviderNames(env).map((n) => FACTORIES[n]!(env));
}

/** The adapter for a provider this installation is configured for. */
export function providerByName(env: Env, name: string): Provider {
  if (!configuredProviderNames(env).includes(name)) throw new Error(`provider "${name}" is not configured`);
  return FACTORIES[name]!(env);
}
