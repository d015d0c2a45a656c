/**
 * JwksCache and authenticateJwt with an injected fetcher and an explicit clock: the issuer's keys are
 * cached for JWKS_TTL_MS; a token with an unknown kid refetches at most once per
 * JWKS_REFETCH_COOLDOWN_MS, and that refetch is how a rotated key is picked up.
 *
 * The body is read as a stream and abandoned past JWKS_MAX_BYTES; a token that
 * is not well formed asks neither D1 nor any JWKS; one token causes at most one fetch.
 */
import jwt from "jsonwebtoken";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import {
  authenticateJwt,
  issuerFor,
  JWKS_MAX_BYTES,
  JWKS_REFETCH_COOLDOWN_MS,
  JWKS_TTL_MS,
  JwksCache,
  jwksGuard,
  wellFormed,
} from "../../src/auth/jwt";
import type { Db } from "../../src/db";
import type { IssuerRow } from "../../src/db/schema";

const URL_A = "https://idp.example.test/jwks";
/** A guard that lets every URL be fetched: the guard itself is tested below and in webhook-target.test.ts. */
const ANY_URL = async () => null;
const T0 = Date.UTC(2030, 0, 1);

interface Key {
  kid: string;
  pem: string;
  jwk: Record<string, unknown>;
}

async function rsaKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return { kid, pem: await exportPKCS8(privateKey), jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256" } };
}

/** A fetcher serving whatever `keys` holds now, counting calls per URL. */
function fakeIdp(initial: Key[]) {
  const state = { keys: initial, calls: 0, urls: [] as string[] };
  const fetcher = async (url: string) => {
    state.calls++;
    state.urls.push(url);
    return new Response(JSON.stringify({ keys: state.keys.map((k) => k.jwk) }), { headers: { "content-type": "application/json" } });
  };
  return { state, fetcher };
}

const issuer: IssuerRow = {
  id: "iss_test",
  org_id: "org_test",
  jwks_url: URL_A,
  iss: "https://idp.example.test/",
  aud: "lessor",
  created_at: T0,
};

/**
 * The one query authenticateJwt makes: issuers by `iss` and `aud`; `queries` counts it. (By `iss`
 * alone too, as older code asked, so these tests can be run against it.)
 */
function fakeDb(rows: IssuerRow[], queries = { count: 0 }): Db {
  return {
    selectFrom: (table: string) => {
      expect(table).toBe("issuers");
      return {
        selectAll: () => ({
          where: (column: string, op: string, iss: unknown) => {
            expect([column, op]).toEqual(["iss", "="]);
            return {
              execute: async () => {
                queries.count++;
                return rows.filter((r) => r.iss === iss);
              },
              where: (column2: string, op2: string, auds: unknown) => {
                expect([column2, op2]).toEqual(["aud", "in"]);
                return {
                  execute: async () => {
                    queries.count++;
                    return rows.filter((r) => r.iss === iss && (auds as string[]).includes(r.aud));
                  },
                };
              },
            };
          },
        }),
      };
    },
  } as unknown as Db;
}

function token(key: Key, now: number, claims: Record<string, unknown> = {}): string {
  const s = Math.floor(now / 1000);
  return jwt.sign(
    { iss: issuer.iss, aud: issuer.aud, sub: "u", scope: "lessor:read", iat: s, exp: s + 3600, ...claims },
    key.pem,
    { algorithm: "RS256", keyid: key.kid },
  );
}

let k1: Key;
let k2: Key;
let k3: Key;
beforeAll(async () => {
  [k1, k2, k3] = await Promise.all([rsaKey("k1"), rsaKey("k2"), rsaKey("k3")]);
});

describe("JwksCache", () => {
  it("serves from the cache within the TTL and refetches after it", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    const first = await cache.get(URL_A, T0);
    expect(first.jwks.keys.map((k) => k.kid)).toEqual(["k1"]);
    await cache.get(URL_A, T0 + 1);
    await cache.get(URL_A, T0 + JWKS_TTL_MS - 1);
    expect(idp.state.calls).toBe(1);
    await cache.get(URL_A, T0 + JWKS_TTL_MS);
    expect(idp.state.calls).toBe(2);
  });

  it("coalesces concurrent fetches of one URL", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    await Promise.all([cache.get(URL_A, T0), cache.get(URL_A, T0), cache.refresh(URL_A, T0)]);
    expect(idp.state.calls).toBe(1);
  });

  it("refresh is refused within the cooldown and fetches once after it", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    await cache.get(URL_A, T0);
    expect(await cache.refresh(URL_A, T0 + JWKS_REFETCH_COOLDOWN_MS - 1)).toBeNull();
    expect(idp.state.calls).toBe(1);
    idp.state.keys = [k2];
    const fresh = await cache.refresh(URL_A, T0 + JWKS_REFETCH_COOLDOWN_MS);
    expect(fresh?.jwks.keys.map((k) => k.kid)).toEqual(["k2"]);
    expect(idp.state.calls).toBe(2);
    // The refetch restarts both clocks.
    expect((await cache.get(URL_A, T0 + JWKS_REFETCH_COOLDOWN_MS + 1)).jwks.keys.map((k) => k.kid)).toEqual(["k2"]);
    expect(idp.state.calls).toBe(2);
  });

  it("a failed fetch is not retried within the cooldown, and is after it", async () => {
    let calls = 0;
    let up = false;
    const cache = new JwksCache(async () => {
      calls++;
      return up ? Response.json({ keys: [k1.jwk] }) : new Response("nope", { status: 503 });
    }, ANY_URL);
    await expect(cache.get(URL_A, T0)).rejects.toThrow(/503/);
    await expect(cache.get(URL_A, T0 + 1)).rejects.toThrow();
    await expect(cache.refresh(URL_A, T0 + JWKS_REFETCH_COOLDOWN_MS - 1)).rejects.toThrow();
    expect(calls).toBe(1);
    up = true;
    expect((await cache.get(URL_A, T0 + JWKS_REFETCH_COOLDOWN_MS)).jwks.keys).toHaveLength(1);
    expect(calls).toBe(2);
  });

  it("a JWKS that is not a key set is a failure, not a cached empty set", async () => {
    for (const body of ["not json", "{}", '{"keys": 1}', "x".repeat(300 * 1024)]) {
      const cache = new JwksCache(async () => new Response(body), ANY_URL);
      await expect(cache.get(URL_A, T0)).rejects.toThrow();
    }
  });
});

describe("authenticateJwt with the cache", () => {
  it("a cached key verifies without refetching", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    const db = fakeDb([issuer]);
    for (let i = 0; i < 3; i++) {
      const p = await authenticateJwt(db, token(k1, T0), T0 + i * 1000, cache);
      expect(p).toEqual({ org_id: "org_test", scope: "read", kind: "jwt", subject: "iss_test:u" });
    }
    expect(idp.state.calls).toBe(1);
  });

  it("an unknown kid refetches once after the cooldown, none within it, and picks up a rotated key", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    const db = fakeDb([issuer]);
    expect(await authenticateJwt(db, token(k1, T0), T0, cache)).not.toBeNull();
    expect(idp.state.calls).toBe(1);

    // The issuer rotates to k2. Within the cooldown, the cached set stands: no fetch, no principal.
    idp.state.keys = [k2];
    const t1 = T0 + JWKS_REFETCH_COOLDOWN_MS - 1;
    expect(await authenticateJwt(db, token(k2, t1), t1, cache)).toBeNull();
    expect(await authenticateJwt(db, token(k2, t1), t1, cache)).toBeNull();
    expect(idp.state.calls).toBe(1);

    // After the cooldown: exactly one refetch, which finds k2.
    const t2 = T0 + JWKS_REFETCH_COOLDOWN_MS;
    expect(await authenticateJwt(db, token(k2, t2), t2, cache)).toMatchObject({ org_id: "org_test", kind: "jwt" });
    expect(idp.state.calls).toBe(2);
    expect(idp.state.urls).toEqual([URL_A, URL_A]);

    // k1 is gone from the refreshed set; k2 keeps verifying from the cache.
    expect(await authenticateJwt(db, token(k2, t2 + 1), t2 + 1, cache)).not.toBeNull();
    expect(idp.state.calls).toBe(2);

    // A kid nobody publishes: one refetch per cooldown at most, and still no principal.
    const t3 = t2 + 1;
    expect(await authenticateJwt(db, token(k3, t3), t3, cache)).toBeNull();
    expect(idp.state.calls).toBe(2);
    const t4 = t2 + JWKS_REFETCH_COOLDOWN_MS;
    expect(await authenticateJwt(db, token(k3, t4), t4, cache)).toBeNull();
    expect(idp.state.calls).toBe(3);
    expect(await authenticateJwt(db, token(k3, t4 + 1), t4 + 1, cache)).toBeNull();
    expect(idp.state.calls).toBe(3);
  });

  it("the `now` passed in is the clock for exp and nbf (60 s skew)", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    const db = fakeDb([issuer]);
    const t = token(k1, T0); // exp = T0 + 1 h
    expect(await authenticateJwt(db, t, T0 + 3600_000 + 59_000, cache)).not.toBeNull();
    expect(await authenticateJwt(db, t, T0 + 3600_000 + 61_000, cache)).toBeNull();
    const early = token(k1, T0, { nbf: Math.floor(T0 / 1000) + 120 });
    expect(await authenticateJwt(db, early, T0, cache)).toBeNull();
    expect(await authenticateJwt(db, early, T0 + 61_000, cache)).not.toBeNull();
  });

  it("asks no JWKS for a token no registered issuer matches", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    expect(await authenticateJwt(fakeDb([issuer]), token(k1, T0, { aud: "other" }), T0, cache)).toBeNull();
    expect(await authenticateJwt(fakeDb([issuer]), token(k1, T0, { iss: "https://evil.test/" }), T0, cache)).toBeNull();
    expect(idp.state.calls).toBe(0);
  });
});

/** A body of `total` bytes served in 16 KiB chunks, counting what was pulled and whether it was cancelled. */
function countedStream(total: number) {
  const state = { pulled: 0, cancelled: false };
  const chunk = new Uint8Array(16 * 1024).fill(0x20);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= total) return controller.close();
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { state, body };
}

describe("bounded JWKS fetching", () => {
  it("reads the body as a stream and abandons it past 256 KiB", async () => {
    const big = countedStream(4 * 1024 * 1024);
    const cache = new JwksCache(async () => new Response(big.body), ANY_URL);
    await expect(cache.get(URL_A, T0)).rejects.toThrow(/larger than/);
    expect(big.state.pulled).toBeLessThanOrEqual(JWKS_MAX_BYTES + 32 * 1024);
    expect(big.state.cancelled).toBe(true);
  });

  it("a declared Content-Length past the bound is refused without reading", async () => {
    const big = countedStream(1024 * 1024);
    const cache = new JwksCache(async () => new Response(big.body, { headers: { "content-length": String(1024 * 1024) } }), ANY_URL);
    await expect(cache.get(URL_A, T0)).rejects.toThrow(/larger than/);
    expect(big.state.pulled).toBeLessThanOrEqual(16 * 1024);
  });

  it("a JWKS just under the bound is read whole", async () => {
    const doc = JSON.stringify({ keys: [k1.jwk], pad: "x".repeat(JWKS_MAX_BYTES - 4096) });
    const cache = new JwksCache(async () => new Response(doc), ANY_URL);
    expect((await cache.get(URL_A, T0)).jwks.keys).toHaveLength(1);
  });

  it("a token that is not well formed asks neither D1 nor any JWKS", async () => {
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    const queries = { count: 0 };
    const db = fakeDb([issuer], queries);
    const good = token(k1, T0);
    const [h, p] = good.split(".");
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const s = Math.floor(T0 / 1000);
    const claims = { iss: issuer.iss, aud: issuer.aud, exp: s + 3600 };
    const bad = [
      `${h}.${p}.`, // no signature
      `${h}.${p}`, // two parts
      `${b64({ alg: "HS256", kid: "k1" })}.${p}.c2ln`, // alg off the allowlist
      `${b64({ alg: "none" })}.${p}.c2ln`,
      `${b64({ kid: "k1" })}.${p}.c2ln`, // no alg
      `bm90IGpzb24.${p}.c2ln`, // header not JSON
      `${h}.${b64({ ...claims, exp: undefined })}.c2ln`, // no exp
      `${h}.${b64({ ...claims, exp: "soon" })}.c2ln`,
      `${h}.${b64({ ...claims, iss: undefined })}.c2ln`, // no iss
      `${h}.${b64({ ...claims, iss: 7 })}.c2ln`,
      `${h}.${b64({ ...claims, aud: undefined })}.c2ln`, // no aud
      `${h}.${b64({ ...claims, aud: [] })}.c2ln`,
      `${h}.${b64({ ...claims, aud: [issuer.aud, 7] })}.c2ln`,
      `${h}.${b64({ ...claims, aud: Array.from({ length: 11 }, (_, i) => `${issuer.aud}${i}`) })}.c2ln`,
      `${h}.${b64({ ...claims, pad: "x".repeat(20_000) })}.c2ln`, // longer than any IdP's token
    ];
    for (const t of bad) expect(await authenticateJwt(db, t, T0, cache)).toBeNull();
    expect(queries.count).toBe(0);
    expect(idp.state.calls).toBe(0);
    for (const t of bad) expect(wellFormed(t), t.slice(0, 60)).toBeNull();
    expect(wellFormed(good)).toEqual({ iss: issuer.iss, audiences: [issuer.aud] });
  });

  it("one token causes at most one JWKS fetch, whatever its audiences and kid", async () => {
    // One org registered two audiences of one IdP at two JWKS URLs; a token naming both is
    // ambiguous (which keys?) and is refused before either is fetched.
    const URL_B = "https://idp.example.test/other-jwks";
    const second: IssuerRow = { ...issuer, id: "iss_test2", aud: "lessor-2", jwks_url: URL_B };
    const idp = fakeIdp([k1]);
    const cache = new JwksCache(idp.fetcher, ANY_URL);
    const db = fakeDb([issuer, second]);
    expect(await authenticateJwt(db, token(k2, T0, { aud: [issuer.aud, second.aud] }), T0, cache)).toBeNull();
    expect(idp.state.calls).toBe(0);
    // A cold cache and an unknown kid: the fetch made for this token is the only one.
    expect(await authenticateJwt(db, token(k3, T0), T0, cache)).toBeNull();
    expect(idp.state.calls).toBe(1);
    // The TTL has passed: the token's fetch of the expired set is its only one, unknown kid or not.
    const t1 = T0 + JWKS_TTL_MS;
    expect(await authenticateJwt(db, token(k3, t1), t1, cache)).toBeNull();
    expect(idp.state.calls).toBe(2);
    // Both audiences on one JWKS and one org: unambiguous, verified once.
    const sameKeys: IssuerRow = { ...second, jwks_url: URL_A };
    const db2 = fakeDb([issuer, sameKeys]);
    expect(await authenticateJwt(db2, token(k1, t1, { aud: [sameKeys.aud, issuer.aud] }), t1, cache)).toMatchObject({ org_id: "org_test", subject: "iss_test:u" });
    expect(idp.state.calls).toBe(2);
  });
});

describe("the JWKS guard (issue 28, item 6)", () => {
  it("a URL the guard refuses is never fetched, its tokens do not verify, and it is not asked again within the cooldown", async () => {
    const idp = fakeIdp([k1]);
    const asked: string[] = [];
    const cache = new JwksCache(idp.fetcher, async (url) => {
      asked.push(url);
      return "idp.example.test points at a private address (10.0.0.1)";
    });
    await expect(cache.get(URL_A, T0)).rejects.toThrow(/is not fetched: idp.example.test points at a private address/);
    expect(await authenticateJwt(fakeDb([issuer]), token(k1, T0), T0 + 1, cache)).toBeNull();
    expect(idp.state.calls).toBe(0);
    expect(asked).toEqual([URL_A]);
  });

  it("the installation's guard: https on 443 to a public host, whatever the development setting for webhooks", async () => {
    const guard = jwksGuard({ LESSOR_DNS_RESOLVER: "off" });
    expect(await guard("https://idp.example.test/jwks")).toBeNull();
    expect(await guard("https://127.0.0.1/jwks")).toBe("the host is a loopback address");
    expect(await guard("https://[::ffff:a9fe:a9fe]/jwks")).toBe("the host is a link-local address");
    expect(await guard("https://idp.example.test:8443/jwks")).toMatch(/^port 8443 is not allowed/);
    expect(await jwksGuard({ LESSOR_DNS_RESOLVER: "off", LESSOR_OUTBOUND_PORTS: "8443" })("https://idp.example.test:8443/jwks")).toBeNull();
    const development = { LESSOR_DNS_RESOLVER: "off", LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1" };
    expect(await jwksGuard(development)("https://127.0.0.1/jwks")).toBe("the host is a loopback address");
  });
});

describe("issuerFor", () => {
  const a: IssuerRow = { ...issuer, id: "iss_a", aud: "a" };
  it("one registration, or several of one org sharing one JWKS (the first by id)", () => {
    expect(issuerFor([])).toBeNull();
    expect(issuerFor([a])).toBe(a);
    const b = { ...a, id: "iss_0", aud: "b" };
    expect(issuerFor([a, b])).toBe(b);
  });

  it("registrations of two orgs, or of two JWKS URLs, are ambiguous", () => {
    expect(issuerFor([a, { ...a, id: "iss_b", org_id: "org_other" }])).toBeNull();
    expect(issuerFor([a, { ...a, id: "iss_b", jwks_url: "https://elsewhere.test/jwks" }])).toBeNull();
  });
});
