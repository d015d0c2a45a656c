/**
 * Where a target's name points, asked before each request to it (src/outbound/target.ts has the
 * rest of the guard). A Worker has no DNS API, but its `fetch` resolves names with Cloudflare's
 * resolver (developers.cloudflare.com/workers/platform/known-issues, "Fetch API in CNAME setup"),
 * which answers DNS over HTTPS in JSON (developers.cloudflare.com/1.1.1.1/encryption/dns-over-https/
 * make-api-requests/dns-json/): so lessor asks that resolver for the name's A and AAAA records,
 * and refuses the target when any of them is not a public address.
 *
 * What this cannot see (docs/security.md "Outbound addresses"): the connection `fetch` makes
 * afterwards resolves the name again, so a name whose answer changes between the two (DNS
 * rebinding with a short TTL) is not caught; nor can lessor connect to the address it checked.
 * In a deployed installation Cloudflare's network, which has no route into the installation's own
 * private networks, stands behind it.
 *
 * LESSOR_DNS_RESOLVER names another resolver of the same JSON API (the tests use a stub), or `off`
 * to look nothing up. A resolver that does not answer leaves the target unchecked, never passed:
 * a delivery is then not sent (and is retried), a JWKS not fetched.
 */
import type { Env } from "../env";
import { ApiError, errorText } from "../errors";
import { readBounded } from "./read-bounded";
import { addressKind, checkTarget, targetRules, type TargetRules } from "./target";

export const DEFAULT_DNS_RESOLVER = "https://cloudflare-dns.com/dns-query";
export const DNS_OFF = "off";
const DNS_TIMEOUT_MS = 5_000;
const DNS_MAX_BYTES = 64 * 1024;
/** DNS record types (RFC 1035, RFC 3596): the answers that are addresses. */
const RECORD_TYPES = { A: 1, AAAA: 28 } as const;
/** DNS RCODE 3: the name does not exist. */
const NXDOMAIN = 3;

type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

/** Why LESSOR_DNS_RESOLVER is unusable, or null (unset, `off`, or an https URL). */
export function dnsResolverProblem(value: string | undefined): string | null {
  if (value === undefined || value === "" || value === DNS_OFF) return null;
  try {
    const url = new URL(value);
    if (url.protocol === "https:" && !url.username && !url.password && !url.hash) return null;
  } catch {
    // Not a URL: said below.
  }
  return `LESSOR_DNS_RESOLVER must be \`${DNS_OFF}\` or the https URL of a DNS-over-HTTPS JSON resolver`;
}

/** The resolver names are checked with; null when they are not (`off`). A value configProblems refuses counts as unset. */
export function dnsResolver(env: Pick<Env, "LESSOR_DNS_RESOLVER">): string | null {
  const value = env.LESSOR_DNS_RESOLVER;
  if (value === DNS_OFF) return null;
  return value && dnsResolverProblem(value) === null ? value : DEFAULT_DNS_RESOLVER;
}

export type Lookup = { ok: true; addresses: string[] } | { ok: false; error: string };

/** The name's A and AAAA records, as the resolver answered them; an error when it did not answer both. */
export async function lookup(resolver: string, name: string, fetcher: Fetcher): Promise<Lookup> {
  const answers = await Promise.all((Object.keys(RECORD_TYPES) as (keyof typeof RECORD_TYPES)[]).map((type) => query(resolver, name, type, fetcher)));
  const failed = answers.find((a) => !a.ok);
  return failed ?? { ok: true, addresses: answers.flatMap((a) => (a.ok ? a.addresses : [])) };
}

async function query(resolver: string, name: string, type: keyof typeof RECORD_TYPES, fetcher: Fetcher): Promise<Lookup> {
  const url = new URL(resolver);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  try {
    const res = await fetcher(url.href, { headers: { accept: "application/dns-json" }, redirect: "manual", signal: AbortSignal.timeout(DNS_TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return { ok: false, error: `the resolver answered ${res.status}` };
    }
    const text = await readBounded(res, DNS_MAX_BYTES);
    if (text === null) return { ok: false, error: "the resolver's answer is too large" };
    const body = JSON.parse(text) as { Status?: unknown; Answer?: { type?: unknown; data?: unknown }[] };
    if (body.Status === NXDOMAIN) return { ok: true, addresses: [] };
    if (body.Status !== 0) return { ok: false, error: `the resolver answered DNS status ${String(body.Status)}` };
    const records = Array.isArray(body.Answer) ? body.Answer : [];
    return { ok: true, addresses: records.filter((r) => r?.type === RECORD_TYPES[type]).map((r) => String(r.data)) };
  } catch (e) {
    return { ok: false, error: `the resolver could not be asked: ${errorText(e).slice(0, 200)}` };
  }
}

/**
 * A target that may be sent to now (`ok`), one refused (`refused`: its form, its literal address,
 * or an address its name points at), or one that could not be checked this time (the resolver did
 * not answer, or the name has no address): it is not sent to, but it is no proof of a bad target.
 */
export type Guarded = { ok: true; url: string } | { ok: false; refused: true; reason: string } | { ok: false; refused: false; url: string; reason: string };

/** The whole guard for one request: the URL's form and host (`checkTarget`), then where its name points. */
export async function guardTarget(raw: string, rules: TargetRules, resolver: string | null, fetcher: Fetcher = (u, i) => fetch(u, i)): Promise<Guarded> {
  const check = checkTarget(raw, rules);
  if (!check.ok) return { ok: false, refused: true, reason: check.reason };
  if (check.name === null || resolver === null) return { ok: true, url: check.url };
  const found = await lookup(resolver, check.name, fetcher);
  if (!found.ok) return { ok: false, refused: false, url: check.url, reason: `could not check where ${check.name} points: ${found.error}` };
  if (found.addresses.length === 0) return { ok: false, refused: false, url: check.url, reason: `${check.name} has no address` };
  for (const address of found.addresses) {
    const kind = addressKind(address);
    if (kind === null) return { ok: false, refused: false, url: check.url, reason: `could not check where ${check.name} points: the resolver answered something that is not an address` };
    if (kind !== "public" && !(kind === "loopback" && rules.allowLoopback)) {
      return { ok: false, refused: true, reason: `${check.name} points at a ${kind} address (${address})` };
    }
  }
  return { ok: true, url: check.url };
}

type GuardEnv = Pick<Env, "LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP" | "LESSOR_ENVIRONMENT" | "LESSOR_OUTBOUND_PORTS" | "LESSOR_DNS_RESOLVER">;

/**
 * A URL an admin gives (a webhook endpoint's, an issuer's JWKS), as stored; or 400
 * `invalid_webhook_url` / `invalid_jwks_url` saying why lessor may not send to it. A name whose
 * addresses cannot be learnt now (the resolver did not answer, or it has none yet) is taken: every
 * request to it checks it again first.
 */
export async function acceptedTarget(env: GuardEnv, url: string, use: "webhook" | "jwks"): Promise<string> {
  const check = await guardTarget(url, targetRules(env, use), dnsResolver(env));
  if (check.ok || !check.refused) return check.url;
  const field = use === "webhook" ? "url" : "jwks_url";
  throw new ApiError(400, `invalid_${use}_url`, `${field}: ${check.reason}`, { field, reason: check.reason });
}
