/**
 * JWTs from an org's trusted issuers (DESIGN.md "trusted issuer"), verified with jose.
 *
 * - Only asymmetric algorithms: RS256, ES256, EdDSA. `alg: none` and every HS* are refused, so a
 *   token "signed" with an issuer's public key as an HMAC secret never verifies.
 * - `exp` is required; `exp`, `nbf`, `iss` and `aud` are enforced with at most 60 s of skew.
 * - The issuer's JWKS is cached; a token whose `kid` is not in the cached set makes one refetch,
 *   at most once per JWKS_REFETCH_COOLDOWN_MS per URL, so unknown kids cannot be used to make
 *   lessor hammer an issuer.
 * - The scope is the `scope` claim (space-separated string or array): `lessor:read`,
 *   `lessor:write`, `lessor:admin`; the highest present wins. A token without one authenticates
 *   but may call nothing.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet } from "jose";
import type { Db } from "../db";
import type { IssuerRow } from "../db/schema";
import { SCOPES, type Principal, type Scope } from "./principal";

export const JWT_ALGORITHMS = ["RS256", "ES256", "EdDSA"];
export const JWT_CLOCK_SKEW_S = 60;
export const JWKS_TTL_MS = 10 * 60_000;
export const JWKS_REFETCH_COOLDOWN_MS = 10_000;
const JWKS_FETCH_TIMEOUT_MS = 5_000;
const JWKS_MAX_BYTES = 256 * 1024;
export const SCOPE_CLAIM = "scope";

type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

interface CachedKeys {
  jwks: JSONWebKeySet;
  fetchedAt: number;
}

/** A JWKS cache per isolate; `now` and `fetcher` are passed in so tests can drive both. */
export class JwksCache {
  readonly #entries = new Map<string, CachedKeys>();
  readonly #inflight = new Map<string, Promise<CachedKeys>>();
  readonly #failedAt = new Map<string, number>();

  constructor(private readonly fetcher: Fetcher = (url, init) => fetch(url, init)) {}

  async get(url: string, now: number): Promise<CachedKeys> {
    const hit = this.#entries.get(url);
    if (hit && now - hit.fetchedAt < JWKS_TTL_MS) return hit;
    return this.#fetch(url, now);
  }

  /** Refetch after an unknown kid; returns null when the cooldown says the cached set stands. */
  async refresh(url: string, now: number): Promise<CachedKeys | null> {
    const hit = this.#entries.get(url);
    if (hit && now - hit.fetchedAt < JWKS_REFETCH_COOLDOWN_MS) return null;
    return this.#fetch(url, now);
  }

  #fetch(url: string, now: number): Promise<CachedKeys> {
    // A JWKS that failed is not asked again within the cooldown either: without this, every
    // request bearing a matching iss + aud (no credential needed) made one fetch to an issuer that
    // is down, slow or hostile, breaking the "at most once per cooldown per URL" promise above.
    const failedAt = this.#failedAt.get(url);
    if (failedAt !== undefined && now - failedAt < JWKS_REFETCH_COOLDOWN_MS) {
      return Promise.reject(new Error(`JWKS ${url} failed ${now - failedAt} ms ago`));
    }
    let p = this.#inflight.get(url);
    if (!p) {
      p = this.#load(url, now)
        .then(
          (entry) => {
            this.#failedAt.delete(url);
            return entry;
          },
          (e: unknown) => {
            this.#failedAt.set(url, now);
            throw e;
          },
        )
        .finally(() => this.#inflight.delete(url));
      this.#inflight.set(url, p);
    }
    return p;
  }

  async #load(url: string, now: number): Promise<CachedKeys> {
    const res = await this.fetcher(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS),
      redirect: "error",
    });
    if (!res.ok) throw new Error(`JWKS ${url} answered ${res.status}`);
    const text = await res.text();
    if (text.length > JWKS_MAX_BYTES) throw new Error(`JWKS ${url} is larger than ${JWKS_MAX_BYTES} bytes`);
    const jwks = JSON.parse(text) as JSONWebKeySet;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`JWKS ${url} has no keys array`);
    const entry = { jwks, fetchedAt: now };
    this.#entries.set(url, entry);
    return entry;
  }
}

export const defaultJwksCache = new JwksCache();

/** A cheap look before any I/O: three base64url parts. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/**
 * The principal of a JWT from one of the issuers registered for its `iss`, or null. Never throws
 * for a bad token; a JWKS that cannot be fetched also yields null (the caller answers 401).
 */
export async function authenticateJwt(
  db: Db,
  token: string,
  now: number,
  cache: JwksCache = defaultJwksCache,
): Promise<Principal | null> {
  let iss: unknown;
  let aud: unknown;
  try {
    const header = decodeProtectedHeader(token);
    if (typeof header.alg !== "string" || !JWT_ALGORITHMS.includes(header.alg)) return null;
    ({ iss, aud } = decodeJwt(token));
  } catch {
    return null;
  }
  if (typeof iss !== "string") return null;
  const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  const issuers = await db.selectFrom("issuers").selectAll().where("iss", "=", iss).execute();
  // Guarantee 8: (iss, aud) is unique per org only, so two orgs may trust the same issuer. A token
  // both accept used to authenticate as whichever registered first, so an org that registered
  // another's IdP ahead of it received that org's tokens. Such a token now authenticates as
  // neither (fail closed); only the issuers are checked, never their order.
  let found: Principal | null = null;
  for (const issuer of issuers.filter((i) => audiences.includes(i.aud))) {
    const principal = await verifyWith(issuer, token, now, cache);
    if (!principal) continue;
    if (found && found.org_id !== principal.org_id) return null;
    found ??= principal;
  }
  return found;
}

async function verifyWith(issuer: IssuerRow, token: string, now: number, cache: JwksCache): Promise<Principal | null> {
  const options = {
    issuer: issuer.iss,
    audience: issuer.aud,
    algorithms: JWT_ALGORITHMS,
    clockTolerance: JWT_CLOCK_SKEW_S,
    requiredClaims: ["exp"],
    currentDate: new Date(now),
  };
  try {
    let keys = await cache.get(issuer.jwks_url, now);
    try {
      const { payload } = await jwtVerify(token, createLocalJWKSet(keys.jwks), options);
      return principalOf(issuer, payload);
    } catch (e) {
      if (!(e instanceof errors.JWKSNoMatchingKey)) return null;
      const fresh = await cache.refresh(issuer.jwks_url, now);
      if (!fresh) return null;
      keys = fresh;
      const { payload } = await jwtVerify(token, createLocalJWKSet(keys.jwks), options);
      return principalOf(issuer, payload);
    }
  } catch {
    return null;
  }
}

function principalOf(issuer: IssuerRow, payload: Record<string, unknown>): Principal {
  return {
    org_id: issuer.org_id,
    scope: scopeOf(payload[SCOPE_CLAIM]),
    kind: "jwt",
    subject: `${issuer.id}:${typeof payload.sub === "string" ? payload.sub : ""}`,
  };
}

export function scopeOf(claim: unknown): Scope | null {
  const words = typeof claim === "string" ? claim.split(/\s+/) : Array.isArray(claim) ? claim : [];
  let best: Scope | null = null;
  for (const scope of SCOPES) {
    if (words.includes(`lessor:${scope}`)) best = scope;
  }
  return best;
}
