/**
 * Which providers this installation rents from, and with whose keys.
 *
 * The installation enables providers by name (LESSOR_PROVIDERS). A provider that needs a key
 * (every real cloud) rents for an org only with that org's own key (PUT /v1/providers/:name,
 * src/providers/credentials.ts); the sim needs none and rents for everyone. This file is the one
 * place that knows each provider by name: everything outside src/providers/ asks it for adapters
 * and branches on their capabilities only.
 */
import type { Db } from "../db";
import type { Env } from "../env";
import type { Provider, ProviderCapabilities } from "./contract";
import { keyHolders, marketKeys, providerCredentials, providerKeyRows, type ProviderCredentials } from "./credentials";
import { ProviderError } from "./contract";
import { LAMBDA_BILLING_INCREMENT_MS, LAMBDA_CAPABILITIES, LambdaProvider } from "./lambda/adapter";
import { RUNPOD_BILLING_INCREMENT_MS, RUNPOD_CAPABILITIES, RUNPOD_DEFAULT_IMAGE, RUNPOD_DEFAULT_IMAGE_MIN_CUDA, RunPodProvider } from "./runpod/adapter";
import { SIM_BILLING_INCREMENT_MS, SIM_CAPABILITIES, SimProvider } from "./sim/adapter";
import { VAST_BILLING_INCREMENT_MS, VAST_CAPABILITIES, VAST_DEFAULT_IMAGE, VAST_DEFAULT_IMAGE_MIN_CUDA, VastProvider } from "./vast/adapter";
import { isProviderName, listedProviderNames, PROVIDER_NAMES, type ProviderName } from "./names";

/** A setting that comes with an org's key and is not secret (stored in the clear). */
export interface ProviderOption {
  name: string;
  required: boolean;
  description: string;
}

interface ProviderEntry {
  /** False: one installation-wide account, usable by every org without a key (the sim). */
  needsKey: boolean;
  capabilities: Readonly<ProviderCapabilities>;
  options: readonly ProviderOption[];
  /**
   * The CUDA version the image a lease without one runs needs (null: none): RunPod's and Vast's
   * default images (their adapters); the sim runs no image, and a Lambda VM without one runs
   * nothing but its own Lambda Stack.
   */
  defaultImageMinCuda: number | null;
  /** That image, pinned by digest (null: none runs). */
  defaultImage: string | null;
  /** The least one machine bills for, ms (each adapter's `*_BILLING_INCREMENT_MS`). */
  billingIncrementMs: number;
  create(env: Env, credentials: ProviderCredentials | null): Provider;
}

const keyOf = (name: string, credentials: ProviderCredentials | null): string => {
  if (!credentials) throw new ProviderError(name, "auth", `no ${name} key is stored for this org`);
  return credentials.api_key;
};

// Indexed by any string (a name from a URL or a setting); `satisfies` keeps it to exactly PROVIDER_NAMES.
const ENTRIES: Record<string, ProviderEntry> = {
  sim: { needsKey: false, capabilities: SIM_CAPABILITIES, options: [], defaultImageMinCuda: null, defaultImage: null, billingIncrementMs: SIM_BILLING_INCREMENT_MS, create: (env) => new SimProvider(env) },
  runpod: {
    needsKey: true,
    capabilities: RUNPOD_CAPABILITIES,
    options: [],
    defaultImageMinCuda: RUNPOD_DEFAULT_IMAGE_MIN_CUDA,
    defaultImage: RUNPOD_DEFAULT_IMAGE,
    billingIncrementMs: RUNPOD_BILLING_INCREMENT_MS,
    create: (env, c) => new RunPodProvider({ apiKey: keyOf("runpod", c), baseUrl: env.LESSOR_RUNPOD_BASE_URL }),
  },
  vast: {
    needsKey: true,
    capabilities: VAST_CAPABILITIES,
    options: [],
    defaultImageMinCuda: VAST_DEFAULT_IMAGE_MIN_CUDA,
    defaultImage: VAST_DEFAULT_IMAGE,
    billingIncrementMs: VAST_BILLING_INCREMENT_MS,
    create: (env, c) => new VastProvider({ apiKey: keyOf("vast", c), baseUrl: env.LESSOR_VAST_BASE_URL }),
  },
  lambda: {
    needsKey: true,
    capabilities: LAMBDA_CAPABILITIES,
    options: [{ name: "ssh_key_name", required: true, description: "the name of an SSH key in the Lambda account; every launch needs exactly one" }],
    defaultImageMinCuda: null,
    defaultImage: null,
    billingIncrementMs: LAMBDA_BILLING_INCREMENT_MS,
    create: (env, c) => {
      const apiKey = keyOf("lambda", c);
      const sshKeyName = c?.options.ssh_key_name;
      if (!sshKeyName) throw new ProviderError("lambda", "auth", "the stored lambda key has no ssh_key_name; PUT it again with one");
      return new LambdaProvider({ apiKey, sshKeyName, baseUrl: env.LESSOR_LAMBDA_BASE_URL });
    },
  },
} satisfies Record<ProviderName, ProviderEntry>;

/** The image a lease that names none runs on `name` (null: none runs there). */
export function defaultImageOf(name: ProviderName): string | null {
  return ENTRIES[name]!.defaultImage;
}

/** Every provider lessor has an adapter for. */
export const KNOWN_PROVIDERS: readonly ProviderName[] = PROVIDER_NAMES;

/** The providers this installation enables (LESSOR_PROVIDERS, default "sim"), in that order. */
export function configuredProviderNames(env: Env): string[] {
  return [...new Set(listedProviderNames(env.LESSOR_PROVIDERS))].filter(isProviderName);
}

export function isConfigured(env: Env, name: string): boolean {
  return configuredProviderNames(env).includes(name);
}

/** What setting up a provider takes: whether an org needs its own key, and which settings. */
export function providerSetup(name: string): { needsKey: boolean; options: readonly ProviderOption[] } {
  const entry = ENTRIES[name];
  if (!entry) throw new Error(`no adapter for provider "${name}"`);
  return { needsKey: entry.needsKey, options: entry.options };
}

/**
 * The least one machine at `name` bills for, ms (docs/design.md "The worst case"). A provider
 * without an adapter is taken to bill by the hour, the coarsest any of them is known to.
 */
export function billingIncrementMs(name: string): number {
  return ENTRIES[name]?.billingIncrementMs ?? 3_600_000;
}

/** The CUDA version a lease without an image of its own needs at `name` (null: none; unknown provider: none). */
export function defaultImageMinCuda(name: string): number | null {
  return ENTRIES[name]?.defaultImageMinCuda ?? null;
}

/** What a provider can do: the same for every account, so no key is needed to know it. */
export function providerCapabilities(name: string): Readonly<ProviderCapabilities> {
  const entry = ENTRIES[name];
  if (!entry) throw new Error(`no adapter for provider "${name}"`);
  return entry.capabilities;
}

/** An adapter built with the given credentials (for verifying a key before or after storing it). */
export function providerWith(env: Env, name: string, credentials: ProviderCredentials | null): Provider {
  const entry = ENTRIES[name];
  if (!entry) throw new Error(`no adapter for provider "${name}"`);
  return entry.create(env, credentials);
}

/**
 * How long an isolate may answer quotes and catalog reads from its memory of an org's usable
 * providers. A key stored or deleted through this isolate is seen at once; through another, within
 * this time. Creating a lease never uses the memory (`fresh`), so no machine is ever rented with a
 * key that is gone.
 */
export const USABLE_PROVIDERS_TTL_MS = 15_000;
const usableMemory = new Map<string, { at: number; names: string[] }>();

/** Forget what this isolate remembers of an org's usable providers (its keys just changed). */
export function forgetUsableProviders(orgId: string): void {
  usableMemory.delete(orgId);
}

/**
 * The providers an org may rent from now: enabled here, and either keyless or holding the org's
 * key whose last verification did not fail. Quotes and the catalog offer only these.
 */
export async function usableProviderNames(env: Env, db: Db, orgId: string, options: { fresh?: boolean } = {}): Promise<string[]> {
  const names = configuredProviderNames(env);
  if (names.every((n) => !ENTRIES[n]!.needsKey)) return names;
  const now = Date.now();
  const remembered = usableMemory.get(orgId);
  if (!options.fresh && remembered && now - remembered.at < USABLE_PROVIDERS_TTL_MS) return remembered.names.filter((n) => names.includes(n));
  const rows = await providerKeyRows(db, orgId);
  const usable = names.filter((n) => {
    if (!ENTRIES[n]!.needsKey) return true;
    const row = rows.get(n);
    return row !== undefined && row.verified_ok !== 0;
  });
  if (usableMemory.size >= 10_000) usableMemory.clear();
  usableMemory.set(orgId, { at: now, names: usable });
  return usable;
}

/**
 * The adapter that acts for an org on a provider, with the org's own key. Throws ProviderError
 * `auth` when the provider is no longer enabled or the org's key is gone or cannot be opened.
 */
export async function providerFor(env: Env, db: Db, orgId: string, name: string): Promise<Provider> {
  return (await providerWithAccount(env, db, orgId, name)).provider;
}

/**
 * The adapter that acts for an org on a provider (as `providerFor`), and which provider account
 * its key is: `accountOf`. A lease records the account that created its machine, so that a key
 * that cannot see the machine is never taken for the machine being gone (docs/design.md "Money 4").
 */
export async function providerWithAccount(env: Env, db: Db, orgId: string, name: string): Promise<{ provider: Provider; account: string }> {
  const entry = ENTRIES[name];
  if (!entry || !isConfigured(env, name)) throw new ProviderError(name, "auth", `provider "${name}" is not enabled on this installation`);
  if (!entry.needsKey) return { provider: entry.create(env, null), account: "" };
  const credentials = await providerCredentials(db, env, orgId, name);
  return { provider: entry.create(env, credentials), account: credentials ? await accountOf(credentials) : "" };
}

/**
 * A provider account's identity that is not a secret: '' for an installation-wide account, else
 * `key:` and the first 16 hex digits of the key's SHA-256 (the same key stored again is the same
 * account; a fingerprint cannot be turned back into the key).
 */
export async function accountOf(credentials: ProviderCredentials | null): Promise<string> {
  if (!credentials) return "";
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(credentials.api_key)));
  return `key:${[...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** One provider account lessor rents in: the installation's own (account '') or an org's. */
export interface ProviderAccount {
  /** '' for an installation-wide account, else the org whose key it is. */
  account: string;
  org_id: string | null;
  provider: Provider;
}

/**
 * Every account the cron jobs must look at: each keyless provider once, and each keyed provider
 * once per org that stored a key that still opens. Machines, orphans and billing live per account.
 */
export async function providerAccounts(env: Env, db: Db): Promise<ProviderAccount[]> {
  const out: ProviderAccount[] = [];
  for (const name of configuredProviderNames(env)) {
    const entry = ENTRIES[name]!;
    if (!entry.needsKey) {
      out.push({ account: "", org_id: null, provider: entry.create(env, null) });
      continue;
    }
    for (const { org_id, credentials } of await keyHolders(db, env, name)) {
      out.push({ account: org_id, org_id, provider: entry.create(env, credentials) });
    }
  }
  return out;
}

/** How many keys one refresh tries for a provider's market at most: a bound on a minute's calls. */
export const MARKET_KEY_ATTEMPTS = 10;

/** The adapters a provider's market may be read with, in the order to try them. */
export interface MarketReaders {
  name: string;
  readers: Provider[];
}

/**
 * For each enabled provider, the adapters its market may be read with (a provider's offers are
 * the same for every account): keyless, or one per org key that has not been refused, most
 * recently verified first (credentials.ts `marketKeys`), so that one org's dead key never stops
 * the market from being read (docs/design.md "Markets"). Providers no org has a usable key for are
 * reported, not read.
 */
export async function catalogProviders(env: Env, db: Db): Promise<{ markets: MarketReaders[]; keyless: string[] }> {
  const markets: MarketReaders[] = [];
  const keyless: string[] = [];
  for (const name of configuredProviderNames(env)) {
    const entry = ENTRIES[name]!;
    if (!entry.needsKey) {
      markets.push({ name, readers: [entry.create(env, null)] });
      continue;
    }
    const readers: Provider[] = [];
    for (const credentials of await marketKeys(db, env, name, MARKET_KEY_ATTEMPTS)) {
      try {
        readers.push(entry.create(env, credentials));
      } catch {
        // Settings the adapter refuses (a missing option): that key cannot read anything.
      }
    }
    if (readers.length > 0) markets.push({ name, readers });
    else keyless.push(name);
  }
  return { markets, keyless };
}
