/**
 * What an installation must be configured with before it serves anything
 * (docs/design.md "Configuration"). A Worker has no start-up step that can refuse to start, so the check runs on every entry
 * (fetch and scheduled, cached per isolate by the settings it read): a misconfigured installation
 * answers every request with 503 `misconfigured` naming the settings to fix, and its cron does
 * nothing. `npm start` (scripts/start.mjs) applies the same rules before it starts `wrangler dev`.
 *
 * The messages name settings, never their values: a wrong secret must not be echoed to a caller.
 */
import type { Env } from "./env";
import { wakeWaitMs } from "./deployments/wake-wait";
import { badHostTtlMs } from "./lease/bad-host";
import { dnsResolverProblem } from "./outbound/dns";
import { outboundPorts } from "./outbound/target";
import { MASTER_KEY_MIN_LENGTH } from "./providers/credentials";
import { listedProviderNames } from "./providers/names";

/** The shortest bootstrap token accepted: it creates orgs, so it must not be guessable. */
export const BOOTSTRAP_TOKEN_MIN_LENGTH = 32;
/** The shortest ingress token accepted: it is the only proof a RunPod webhook carries. */
export const INGRESS_TOKEN_MIN_LENGTH = 32;
/** The installation id every development checkout shares; a production installation has its own. */
export const DEFAULT_INSTALLATION_ID = "dev";

/** This installation's id: LESSOR_INSTALLATION_ID, or the development default when it is unset. */
export function installationId(env: Pick<Env, "LESSOR_INSTALLATION_ID">): string {
  return env.LESSOR_INSTALLATION_ID ?? DEFAULT_INSTALLATION_ID;
}
const INSTALLATION_ID = /^[a-z0-9]{1,24}$/;
const INGRESS_TOKEN = /^[A-Za-z0-9._~-]+$/;

/** Every setting `configProblems` reads; the cache below is keyed by all of them. */
const CONFIG_KEYS = [
  "LESSOR_ENVIRONMENT",
  "LESSOR_BOOTSTRAP_TOKEN",
  "LESSOR_INGRESS_TOKEN",
  "LESSOR_MASTER_KEY",
  "LESSOR_INSTALLATION_ID",
  "LESSOR_PROVIDERS",
  "LESSOR_PUBLIC_URL",
  "LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP",
  "LESSOR_DNS_RESOLVER",
  "LESSOR_OUTBOUND_PORTS",
  "LESSOR_BAD_HOST_TTL",
  "LESSOR_GATEWAY_WAKE_WAIT",
] as const satisfies readonly (keyof Env)[];

type ConfigEnv = Pick<Env, (typeof CONFIG_KEYS)[number]>;

/**
 * Why a LESSOR_PUBLIC_URL is unusable, or null: it must be an absolute http(s) URL of an origin
 * (machines append `/v1/agent/...` to it), with no credentials, path, query or fragment; and in
 * production https, since every agent sends its lease's token to it.
 */
function publicUrlProblem(value: string, production: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "LESSOR_PUBLIC_URL must be an absolute URL, e.g. https://lessor.example.com";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "LESSOR_PUBLIC_URL must be an http or https URL";
  if (production && url.protocol !== "https:") return "LESSOR_PUBLIC_URL must be https in production: machines send their lease's token to it";
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) {
    return "LESSOR_PUBLIC_URL must be an origin only (scheme, host, port): no credentials, path, query or fragment";
  }
  return null;
}

/**
 * Where machines reach lessor (LESSOR_PUBLIC_URL, without a trailing slash); null when unset,
 * which configProblems allows only outside production (`npm start` sets it to the local URL).
 */
export function publicUrl(env: Pick<Env, "LESSOR_PUBLIC_URL">): string | null {
  const value = env.LESSOR_PUBLIC_URL;
  return value ? new URL(value).origin : null;
}

/** Every problem with the installation's settings; empty when it may serve. */
export function configProblems(env: ConfigEnv): string[] {
  const problems: string[] = [];
  const production = env.LESSOR_ENVIRONMENT === "production";
  const token = env.LESSOR_BOOTSTRAP_TOKEN;
  // Unset is allowed: it disables POST /v1/orgs (403 bootstrap_disabled). Set, it must be strong.
  if (token !== undefined && token !== "" && token.length < BOOTSTRAP_TOKEN_MIN_LENGTH) {
    problems.push(`LESSOR_BOOTSTRAP_TOKEN must be at least ${BOOTSTRAP_TOKEN_MIN_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`);
  }
  const ingress = env.LESSOR_INGRESS_TOKEN;
  // Unset is allowed: it turns ingress off (404). Set, it must be as strong as the bootstrap token.
  // It is a URL path segment, so only characters that need no escaping there.
  if (ingress !== undefined && ingress !== "" && (ingress.length < INGRESS_TOKEN_MIN_LENGTH || !INGRESS_TOKEN.test(ingress))) {
    problems.push(`LESSOR_INGRESS_TOKEN must be at least ${INGRESS_TOKEN_MIN_LENGTH} characters of A-Z, a-z, 0-9, '-', '_', '.', '~' (e.g. \`openssl rand -hex 32\`)`);
  }
  const master = env.LESSOR_MASTER_KEY;
  if (master !== undefined && master !== "" && master.length < MASTER_KEY_MIN_LENGTH) {
    problems.push(`LESSOR_MASTER_KEY must be at least ${MASTER_KEY_MIN_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`);
  }
  const installation = env.LESSOR_INSTALLATION_ID;
  if (installation !== undefined && installation !== "" && !INSTALLATION_ID.test(installation)) {
    problems.push("LESSOR_INSTALLATION_ID must be 1 to 24 lowercase letters and digits");
  }
  if (badHostTtlMs(env.LESSOR_BAD_HOST_TTL) === null) {
    problems.push("LESSOR_BAD_HOST_TTL must be a duration (e.g. `24h`, `90m`) or `0` to remember no failed host");
  }
  if (wakeWaitMs(env) === null) {
    problems.push("LESSOR_GATEWAY_WAKE_WAIT must be a duration (e.g. `30s`, `2m`)");
  }
  const resolver = dnsResolverProblem(env.LESSOR_DNS_RESOLVER);
  if (resolver) problems.push(resolver);
  if (outboundPorts(env.LESSOR_OUTBOUND_PORTS) === null) {
    problems.push("LESSOR_OUTBOUND_PORTS must be ports separated by commas (e.g. `8443,9443`)");
  }
  if (production) {
    // Two installations that share a provider account tell their machines apart by this id
    // (src/lease/label.ts); the shared development default would let one reap the other's.
    if (!installation || installation === DEFAULT_INSTALLATION_ID) {
      problems.push(`LESSOR_INSTALLATION_ID must be set to this installation's own id (not "${DEFAULT_INSTALLATION_ID}") in production`);
    }
    if (!master) problems.push("LESSOR_MASTER_KEY must be set in production: it encrypts the orgs' provider keys");
    if (env.LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP) {
      problems.push("LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP must not be set in production: it lets webhooks reach the installation's own network");
    }
    const providers = listedProviderNames(env.LESSOR_PROVIDERS);
    if (providers.includes("sim")) {
      problems.push('LESSOR_PROVIDERS must not include "sim" in production: the simulated cloud rents nothing real');
    }
  }
  const publicUrlValue = env.LESSOR_PUBLIC_URL;
  if (publicUrlValue !== undefined && publicUrlValue !== "") {
    const problem = publicUrlProblem(publicUrlValue, production);
    if (problem) problems.push(problem);
  } else if (production) {
    problems.push("LESSOR_PUBLIC_URL must be set in production: the https origin machines reach lessor at (their agent fetches its script and reports there)");
  }
  return problems;
}

let cached: { key: string; problems: string[] } | null = null;

/** `configProblems`, computed once per isolate for the settings it sees. */
export function configProblemsCached(env: ConfigEnv): string[] {
  // The key holds the secrets' values, as the isolate's env does already; it never leaves it.
  const key = JSON.stringify(CONFIG_KEYS.map((name) => env[name] ?? null));
  if (cached?.key !== key) cached = { key, problems: configProblems(env) };
  return cached.problems;
}
