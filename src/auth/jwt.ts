/**
 * JWTs from an org's trusted issuers (docs/design.md, "trusted issuer"), verified with jose.
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
 *
 * A token names its org by its `(iss, aud)`, a pair at most one org holds
 * (migrations/0006_issuer_pairs.sql, src/auth/issuers-repo.ts), so no registration by one org can
 * change whether another's tokens verify. A token whose audiences name registrations of two orgs,
 * or two JWKS URLs, is ambiguous and refused before any fetch.
 *
 * Fetching is bounded. A token that is not well formed (`wellFormed`) is refused
 * before D1 or any JWKS is asked; one token leads to at most one JWKS fetch (one issuer, and the
 * refetch for an unknown kid only when the cached set was not just fetched); the JWKS body is read
 * as a stream and abandoned past JWKS_MAX_BYTES.
 *
 * Fetching is guarded as webhooks are (src/outbound/, docs/security.md "Outbound addresses"): a
 * JWKS URL must be https on port 443 (or a port the installation allows) on a public host, at
 * registration (src/auth/issuers-repo.ts) and again before every fetch, when where its name
 * points is looked up; a URL that fails is not fetched, and its tokens do not verify.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet } from "jose";
import type { Db } from "../db";
import type { IssuerRow } from "../db/schema";
import type { Env } from "../env";
import { dnsResolver, guardTarget } from "../outbound/dns";
import { readBounded } from "../outbound/read-bounded";
import { targetRules } from "../outbound/target";
import { SCOPES, type Principal, type Scope } from "./principal";

export const JWT_ALGORITHMS = ["RS256", "ES256", "EdDSA"];
export const JWT_CLOCK_SKEW_S = 60;
export const JWKS_TTL_MS = 10 * 60_000;
export const JWKS_REFETCH_COOLDOWN_MS = 10_000;
const JWKS_FETCH_TIMEOUT_MS = 5_000;
export const JWKS_MAX_BYTES = 256 * 1024;
/** Longer tokens are refused unread: no IdP's access token comes near it. */
export const JWT_MAX_LENGTH = 16 * 1024;
/** A token may name at most this many audiences (RFC 7519 4.1.3 allows an array). */
export const JWT_MAX_AUDIENCES = 10;
export const SCOPE_CLAIM = "scope";

type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

/** Whether a JWKS URL may be fetched now: null when it may, else why not. */
export type JwksGuard = (url: string) => Promise<string | null>;

interface CachedKeys {
  jwks: JSONWebKeySet;
  fetchedAt: number;
}

/** A JWKS cache per isolate; `now` and `fetcher` are passed in so tests can drive both. */
export class JwksCache {
  readonly #entries = new Map<string, CachedKeys>();
  readonly #inflight = new Map<string, Promise<CachedKeys>>();
  readonly #failedAt = new Map<string, number>();

  constructor(
    private readonly fetcher: Fetcher,
    private readonly guard: JwksGuard,
  ) {}

  async get(url: string, now: number): Promise<CachedKeys> {
    return this.cached(url, now) ?? this.#fetch(url, now);
  }

  /** The cached set while within its TTL, else null; never fetches. */
  cached(url: string, now: number): CachedKeys | null {
    const hit = this.#entries.get(url);
    return hit && now - hit.fetchedAt < JWKS_TTL_MS ? hit : null;
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
    const refused = await this.guard(url);
    if (refused !== null) throw new Error(`JWKS ${url} is not fetched: ${refused}`);
    const res = await this.fetcher(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS),
      // Not followed: a redirect could lead past the guard. The Workers runtime refuses
      // `redirect: "error"` (a TypeError before any request, which made every JWKS fetch fail);
      // with `manual` a 3xx answer is not ok, and is refused below.
      redirect: "manual",
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`JWKS ${url} answered ${res.status}`);
    }
    const text = await readBounded(res, JWKS_MAX_BYTES);
    if (text === null) throw new Error(`JWKS ${url} is larger than ${JWKS_MAX_BYTES} bytes`);
    const jwks = JSON.parse(text) as JSONWebKeySet;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`JWKS ${url} has no keys array`);
    const entry = { jwks, fetchedAt: now };
    this.#entries.set(url, entry);
    return entry;
  }
}

/** The installation's guard for JWKS URLs: the outbound rules, and where the name points now. */
export function jwksGuard(env: Pick<Env, "LESSOR_OUTBOUND_PORTS" | "LESSOR_DNS_RESOLVER" | "LESSOR_ENVIRONMENT">): JwksGuard {
  const rules = targetRules(env, "jwks");
  const resolver = dnsResolver(env);
  return async (url) => {
    const check = await guardTarget(url, rules, resolver);
    return check.ok ? null : check.reason;
  };
}

let shared: { key: string; cache: JwksCache } | null = null;

/** The isolate's JWKS cache, its fetches guarded by the installation's settings (one cache while they stay the same). */
export function jwksCache(env: Pick<Env, "LESSOR_OUTBOUND_PORTS" | "LESSOR_DNS_RESOLVER" | "LESSOR_ENVIRONMENT">): JwksCache {
  const key = JSON.stringify([env.LESSOR_OUTBOUND_PORTS ?? null, env.LESSOR_DNS_RESOLVER ?? null]);
  if (shared?.key !== key) shared = { key, cache: new JwksCache((url, init) => fetch(url, init), jwksGuard(env)) };
  return shared.cache;
}

/** A cheap look before any I/O: three base64url parts. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** What a well-formed token names, read without verifying anything. */
export interface TokenClaims {
  iss: string;
  audiences: string[];
}

/**
 * The `iss` and audiences of a token worth verifying, or null: it must be at most JWT_MAX_LENGTH,
 * have three parts with a signature, a header that parses with an `alg` on the allowlist, and a
 * payload with a string `iss`, one to JWT_MAX_AUDIENCES string audiences and a numeric `exp`. Pure:
 * a token refused here costs no D1 read and no fetch.
 */
export function wellFormed(token: string): TokenClaims | null {
  if (token.length > JWT_MAX_LENGTH) return null;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[2] === "") return null;
  let iss: unknown;
  let aud: unknown;
  let exp: unknown;
  try {
    const header = decodeProtectedHeader(token);
    if (typeof header.alg !== "string" || !JWT_ALGORITHMS.includes(header.alg)) return null;
    ({ iss, aud, exp } = decodeJwt(token));
  } catch {
    return null;
  }
  if (typeof iss !== "string" || iss === "" || typeof exp !== "number") return null;
  const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  if (audiences.length === 0 || audiences.length > JWT_MAX_AUDIENCES || !audiences.every((a) => typeof a === "string")) return null;
  return { iss, audiences: audiences as string[] };
}

/**
 * The one registration a token can be verified with, among those its `(iss, aud)` pairs match, or
 * null. Pairs are unique across the installation, so a token with one audience matches at most
 * one; a token with several matches more than one only when its IdP names several registrations
 * in it, and then only when they are one org's and share one JWKS is it unambiguous.
 */
export function issuerFor(rows: IssuerRow[]): IssuerRow | null {
  if (rows.length === 0) return null;
  const [first] = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (rows.some((r) => r.org_id !== first!.org_id || r.jwks_url !== first!.jwks_url)) return null;
  return first!;
}

/**
 * The principal of a JWT from the issuer registered for its `(iss, aud)`, or null. Never throws
 * for a bad token; a JWKS that cannot be fetched also yields null (the caller answers 401).
 */
export async function authenticateJwt(
  db: Db,
  token: string,
  now: number,
  cache: JwksCache,
): Promise<Principal | null> {
  const claims = wellFormed(token);
  if (!claims) return null;
  const rows = await db
    .selectFrom("issuers")
    .selectAll()
    .where("iss", "=", claims.iss)
    .where("aud", "in", claims.audiences)
    .execute();
  const issuer = issuerFor(rows);
  return issuer ? verifyWith(issuer, token, now, cache) : null;
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
    // At most one fetch for this token: when the set had to be fetched now, an unknown kid is not
    // looked for in a second fetch.
    const hit = cache.cached(issuer.jwks_url, now);
    let keys = hit ?? (await cache.get(issuer.jwks_url, now));
    try {
      const { payload } = await jwtVerify(token, createLocalJWKSet(keys.jwks), options);
      return principalOf(issuer, payload);
    } catch (e) {
      if (!(e instanceof errors.JWKSNoMatchingKey) || !hit) return null;
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
