/**
 * Trusted issuers (docs/design.md "Words"): a JWT from an org's registered JWKS URL + iss + aud
 * authenticates as that org. Tokens are minted with `jsonwebtoken`, an implementation independent
 * of the jose that verifies them; the JWKS is served by a stub of globalThis.fetch (the Worker runs
 * in this isolate, so it sees the stub) that counts how often each issuer's keys are fetched.
 */
import jwt from "jsonwebtoken";
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { dnsDown, setDns } from "./dns-stub";
import { call, createKey, createOrg, expectError, json, type TestOrg } from "./helpers";

interface SigningKey {
  kid: string;
  alg: "RS256" | "ES256";
  privatePem: string;
  publicPem: string;
  publicJwk: Record<string, unknown>;
}

async function signingKey(alg: "RS256" | "ES256", kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    kid,
    alg,
    privatePem: await exportPKCS8(privateKey),
    publicPem: await exportSPKI(publicKey),
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" },
  };
}

/** JWKS documents served by the fetch stub, by URL, and how often each was fetched. */
const served = new Map<string, { keys: Record<string, unknown>[] }>();
const fetches = new Map<string, number>();
let fetchSpy: MockInstance<typeof fetch>;

beforeAll(() => {
  const realFetch = globalThis.fetch;
  fetchSpy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    // As the runtime's fetch does first: a request it would refuse (an init it does not accept,
    // such as `redirect: "error"`) is refused here too.
    const url = new Request(input, init).url;
    const jwks = served.get(url);
    if (!jwks) return realFetch(input, init);
    fetches.set(url, (fetches.get(url) ?? 0) + 1);
    return Response.json(jwks);
  });
});

afterAll(() => {
  fetchSpy.mockRestore();
});

interface Issuer {
  id: string;
  org: TestOrg;
  url: string;
  iss: string;
  aud: string;
}

let issuerCounter = 0;
/** A fresh org trusting a fresh issuer (its own host, iss and aud) whose JWKS holds `keys`. */
async function trustedIssuer(keys: SigningKey[], org?: TestOrg): Promise<Issuer> {
  org ??= await createOrg();
  const n = ++issuerCounter;
  const host = `idp-${n}-${crypto.randomUUID()}.test`;
  const url = `https://${host}/jwks`;
  served.set(url, { keys: keys.map((k) => k.publicJwk) });
  const iss = `https://${host}/`;
  // docs/api.md ("Authentication and scopes") asks that a registration's audience name its org.
  const aud = `https://lessor.test/${org.id}/${n}`;
  const res = await call("POST", "/v1/auth/issuers", { key: org.adminKey, body: { jwks_url: url, iss, aud } });
  expect(res.status).toBe(201);
  const body = await json(res);
  expect(body).toEqual({ id: expect.stringMatching(/^iss_/), jwks_url: url, iss, aud, created_at: expect.any(String) });
  return { id: body.id, org, url, iss, aud };
}

const nowS = () => Math.floor(Date.now() / 1000);

/** A token for `issuer` signed with `key`; `claims` override or (as undefined) remove claims. */
function mint(issuer: Issuer, key: SigningKey, claims: Record<string, unknown> = {}, alg: string = key.alg): string {
  const payload: Record<string, unknown> = {
    iss: issuer.iss,
    aud: issuer.aud,
    sub: "user-1",
    scope: "openid lessor:read",
    iat: nowS(),
    exp: nowS() + 300,
    ...claims,
  };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return jwt.sign(payload, key.privatePem, { algorithm: alg as jwt.Algorithm, keyid: key.kid });
}

/** Checks an HS256 signature with WebCrypto (jsonwebtoken's verify refuses a PEM as HMAC secret). */
async function hmacValid(token: string, secret: string): Promise<boolean> {
  const [h, p, sig] = token.split(".");
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const bytes = Uint8Array.from(atob(sig!.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
  return crypto.subtle.verify("HMAC", key, bytes, new TextEncoder().encode(`${h}.${p}`));
}

async function expect401(token: string) {
  const res = await call("GET", "/v1/org", { key: token });
  await expectError(res, 401, "unauthenticated");
  expect(res.headers.get("www-authenticate")).toBe('Bearer realm="lessor"');
}

let rsa: SigningKey;
let ec: SigningKey;
let other: SigningKey;

beforeAll(async () => {
  [rsa, ec, other] = await Promise.all([signingKey("RS256", "rsa-1"), signingKey("ES256", "ec-1"), signingKey("RS256", "rsa-1")]);
});

describe("trusted issuers: tokens that authenticate", () => {
  it("a valid RS256 token authenticates as the issuer's org, and the JWKS is cached", async () => {
    const issuer = await trustedIssuer([rsa]);
    const res = await call("GET", "/v1/org", { key: mint(issuer, rsa) });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ id: issuer.org.id, caller: { kind: "jwt", scope: "read", subject: `${issuer.id}:user-1` } });
    expect(res.headers.get("ratelimit-limit")).toBe("600");
    expect(fetches.get(issuer.url)).toBe(1);
    // Within the TTL the cached set serves.
    expect((await call("GET", "/v1/org", { key: mint(issuer, rsa, { sub: "user-2" }) })).status).toBe(200);
    expect(fetches.get(issuer.url)).toBe(1);
  });

  it("a valid ES256 token authenticates", async () => {
    const issuer = await trustedIssuer([ec]);
    const res = await call("GET", "/v1/org", { key: mint(issuer, ec, { scope: "lessor:write" }) });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: issuer.org.id, caller: { kind: "jwt", scope: "write" } });
  });

  it("an exp 30 s in the past is within the clock skew and still passes", async () => {
    const issuer = await trustedIssuer([rsa]);
    const res = await call("GET", "/v1/org", { key: mint(issuer, rsa, { iat: nowS() - 600, exp: nowS() - 30 }) });
    expect(res.status).toBe(200);
  });

  it("the highest lessor scope in the claim wins, as a string or an array", async () => {
    const issuer = await trustedIssuer([rsa]);
    const a = await call("GET", "/v1/org", { key: mint(issuer, rsa, { scope: "lessor:read lessor:admin" }) });
    expect((await json(a)).caller.scope).toBe("admin");
    const b = await call("GET", "/v1/org", { key: mint(issuer, rsa, { scope: ["lessor:write", "email"] }) });
    expect((await json(b)).caller.scope).toBe("write");
  });

  it("the JWT's scope is enforced like a key's", async () => {
    const issuer = await trustedIssuer([rsa]);
    const read = mint(issuer, rsa, { scope: "lessor:read" });
    expect((await call("GET", "/v1/catalog/gpus", { key: read })).status).toBe(200);
    await expectError(await call("GET", "/v1/keys", { key: read }), 403, "insufficient_scope");
    const admin = mint(issuer, rsa, { scope: "lessor:admin" });
    expect((await call("GET", "/v1/keys", { key: admin })).status).toBe(200);
  });
});

describe("trusted issuers: tokens that do not", () => {
  let issuer: Issuer;
  beforeAll(async () => {
    issuer = await trustedIssuer([rsa, ec]);
  });

  it("expired (beyond the 60 s skew): 401", async () => {
    await expect401(mint(issuer, rsa, { iat: nowS() - 600, exp: nowS() - 120 }));
  });

  it("not yet valid (nbf beyond the 60 s skew): 401", async () => {
    await expect401(mint(issuer, rsa, { nbf: nowS() + 120 }));
  });

  it("wrong audience: 401", async () => {
    await expect401(mint(issuer, rsa, { aud: `${issuer.aud}-other` }));
  });

  it("wrong issuer: 401", async () => {
    await expect401(mint(issuer, rsa, { iss: `${issuer.iss}other` }));
  });

  it("no exp: 401", async () => {
    await expect401(mint(issuer, rsa, { exp: undefined }));
  });

  it("signed by another key under a known kid: 401", async () => {
    await expect401(mint(issuer, other));
  });

  it("alg none: 401", async () => {
    const payload = { iss: issuer.iss, aud: issuer.aud, sub: "user-1", scope: "lessor:admin", exp: nowS() + 300 };
    const token = jwt.sign(payload, null as unknown as string, { algorithm: "none" });
    expect(token.endsWith(".")).toBe(true);
    await expect401(token);
  });

  it("HS256 keyed with the issuer's public key PEM: 401", async () => {
    const payload = { iss: issuer.iss, aud: issuer.aud, sub: "user-1", scope: "lessor:admin", exp: nowS() + 300 };
    for (const secret of [rsa.publicPem, JSON.stringify(rsa.publicJwk)]) {
      const token = jwt.sign(payload, secret, { algorithm: "HS256", keyid: rsa.kid });
      // The token is genuinely valid HMAC under that secret; only lessor's refusal stops it.
      expect(await hmacValid(token, secret)).toBe(true);
      await expect401(token);
    }
  });

  it("unknown kid: 401, and a cold cache fetches the JWKS once (the refetch is held by the cooldown)", async () => {
    const fresh = await trustedIssuer([rsa]);
    const stranger = await signingKey("RS256", "not-published");
    await expect401(mint(fresh, stranger));
    expect(fetches.get(fresh.url)).toBe(1);
    await expect401(mint(fresh, stranger));
    expect(fetches.get(fresh.url)).toBe(1);
  });

  it("garbage that looks like a JWT: 401", async () => {
    for (const token of ["a.b.c", "eyJhbGciOiJSUzI1NiJ9.e30.", "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln"]) await expect401(token);
  });
});

describe("trusted issuers: scope and lifecycle", () => {
  it("a token without a lessor scope authenticates but gets 403 on GET /v1/org", async () => {
    const issuer = await trustedIssuer([rsa]);
    for (const scope of [undefined, "openid email", "lessor:root"]) {
      const res = await call("GET", "/v1/org", { key: mint(issuer, rsa, { scope }) });
      const err = await expectError(res, 403, "insufficient_scope");
      expect(err.details).toEqual({ needed: "read", have: null });
    }
  });

  it("deleting the issuer makes its tokens 401", async () => {
    const issuer = await trustedIssuer([rsa]);
    const token = mint(issuer, rsa);
    expect((await call("GET", "/v1/org", { key: token })).status).toBe(200);
    const del = await call("DELETE", `/v1/auth/issuers/${issuer.id}`, { key: issuer.org.adminKey });
    expect(del.status).toBe(200);
    expect((await json(del)).id).toBe(issuer.id);
    await expect401(token);
    const list = await json(await call("GET", "/v1/auth/issuers", { key: issuer.org.adminKey }));
    expect(list.data).toEqual([]);
  });

  it("no org can lock another out of JWT login", async () => {
    const victim = await trustedIssuer([rsa]);
    const token = mint(victim, rsa, { scope: "lessor:admin" });
    expect((await json(await call("GET", "/v1/org", { key: token }))).id).toBe(victim.org.id);
    const attacker = await createOrg();
    // Registering the victim's very pair, at its JWKS or at one the attacker controls: 409, nothing stored.
    for (const jwks_url of [victim.url, `https://idp-evil-${crypto.randomUUID()}.test/jwks`]) {
      const err = await expectError(
        await call("POST", "/v1/auth/issuers", { key: attacker.adminKey, body: { jwks_url, iss: victim.iss, aud: victim.aud } }),
        409,
        "issuer_taken",
      );
      // Another org's registration is not named (guarantee 8): the details are the caller's own input.
      expect(err.details).toEqual({ iss: victim.iss, aud: victim.aud });
      expect(JSON.stringify(err)).not.toContain(victim.id);
    }
    expect((await json(await call("GET", "/v1/auth/issuers", { key: attacker.adminKey }))).data).toEqual([]);
    // The attacker may trust the same IdP with an audience of its own; the victim's tokens still
    // reach the victim, and the attacker's own reach the attacker.
    const own = { jwks_url: victim.url, iss: victim.iss, aud: `https://lessor.test/${attacker.id}` };
    expect((await call("POST", "/v1/auth/issuers", { key: attacker.adminKey, body: own })).status).toBe(201);
    expect((await json(await call("GET", "/v1/org", { key: token }))).id).toBe(victim.org.id);
    expect((await json(await call("GET", "/v1/org", { key: mint({ ...victim, aud: own.aud }, rsa) }))).id).toBe(attacker.id);
    // A token whose audiences name registrations of both orgs names no one org: refused.
    await expect401(mint(victim, rsa, { aud: [victim.aud, own.aud] }));
  });

  it("two orgs registering one pair at once, one of them gets it", async () => {
    const orgs = await Promise.all([createOrg(), createOrg(), createOrg()]);
    const host = `idp-race-${crypto.randomUUID()}.test`;
    const url = `https://${host}/jwks`;
    served.set(url, { keys: [rsa.publicJwk] });
    const aud = "https://lessor.test/contested";
    const answers = await Promise.all(
      orgs.map((o) => call("POST", "/v1/auth/issuers", { key: o.adminKey, body: { jwks_url: url, iss: `https://${host}/`, aud } })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    for (const r of answers) if (r.status === 409) expect((await json(r)).error.code).toBe("issuer_taken");
  });

  it("at most 10 issuers per org, counted with the insert", async () => {
    const org = await createOrg();
    const body = (i: number) => ({ jwks_url: `https://idp-many.test/jwks`, iss: `https://idp-many-${i}.test/`, aud: `https://lessor.test/${org.id}` });
    for (let i = 0; i < 7; i++) expect((await call("POST", "/v1/auth/issuers", { key: org.adminKey, body: body(i) })).status).toBe(201);
    // Five at once for the last three places.
    const answers = await Promise.all([7, 8, 9, 10, 11].map((i) => call("POST", "/v1/auth/issuers", { key: org.adminKey, body: body(i) })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of answers.filter((r) => r.status !== 201)) {
      const err = await expectError(r, 409, "limit_reached");
      expect(err.details).toEqual({ limit: "issuers", max: 10 });
    }
    const list = await json(await call("GET", "/v1/auth/issuers", { key: org.adminKey }));
    expect(list.data).toHaveLength(10);
    // Deleting one frees its place.
    expect((await call("DELETE", `/v1/auth/issuers/${list.data[0].id}`, { key: org.adminKey })).status).toBe(200);
    expect((await call("POST", "/v1/auth/issuers", { key: org.adminKey, body: body(12) })).status).toBe(201);
  });

  it("registering issuers needs admin, https, and refuses a duplicate iss + aud with 409", async () => {
    const org = await createOrg();
    const write = await createKey(org, "write");
    const body = { jwks_url: "https://idp-dup.test/jwks", iss: "https://idp-dup.test/", aud: "dup" };
    await expectError(await call("POST", "/v1/auth/issuers", { key: write.secret, body }), 403, "insufficient_scope");
    await expectError(
      await call("POST", "/v1/auth/issuers", { key: org.adminKey, body: { ...body, jwks_url: "http://idp-dup.test/jwks" } }),
      400,
      "invalid_request",
    );
    expect((await call("POST", "/v1/auth/issuers", { key: org.adminKey, body })).status).toBe(201);
    await expectError(await call("POST", "/v1/auth/issuers", { key: org.adminKey, body }), 409, "issuer_exists");
  });
});

describe("trusted issuers: where lessor fetches keys (issue 28, item 6)", () => {
  afterEach(() => dnsDown(false));

  it("refuses a JWKS URL on a loopback, private, link-local or reserved address in any spelling, on another port, or whose name points at one", async () => {
    const org = await createOrg();
    const inside = `idp-inside-${crypto.randomUUID()}.test`;
    setDns(inside, ["10.1.2.3"]);
    const refused = [
      "https://127.0.0.1/jwks",
      "https://2130706433/jwks",
      "https://0x7f.1/jwks",
      "https://[::1]/jwks",
      "https://[::ffff:7f00:1]/jwks",
      "https://[::ffff:169.254.169.254]/jwks",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/jwks",
      "https://[fd00::1]/jwks",
      "https://[fe80::1]/jwks",
      "https://localhost/jwks",
      "https://metadata.google.internal/jwks",
      "https://idp-port.test:8443/jwks",
      `https://${inside}/jwks`,
    ];
    for (const jwks_url of refused) {
      const res = await call("POST", "/v1/auth/issuers", { key: org.adminKey, body: { jwks_url, iss: "https://idp-refused.test/", aud: `https://lessor.test/${org.id}` } });
      const err = await expectError(res, 400, "invalid_jwks_url");
      expect(err.details.field, jwks_url).toBe("jwks_url");
    }
    const last = await json(await call("POST", "/v1/auth/issuers", { key: org.adminKey, body: { jwks_url: `https://${inside}/jwks`, iss: "https://idp-refused.test/", aud: "x" } }));
    expect(last.error.details.reason).toBe(`${inside} points at a private address (10.1.2.3)`);
    expect((await json(await call("GET", "/v1/auth/issuers", { key: org.adminKey }))).data).toEqual([]);
    setDns(inside, null);
  });

  it("checks again before every fetch: a name pointed at a private address since is not fetched, and its tokens do not verify", async () => {
    const issuer = await trustedIssuer([rsa]);
    const host = new URL(issuer.url).hostname;
    setDns(host, ["169.254.169.254"]);
    await expect401(mint(issuer, rsa));
    expect(fetches.get(issuer.url)).toBeUndefined();
    setDns(host, null);
  });

  it("a name the resolver cannot say anything about is registered, and not fetched while it cannot", async () => {
    dnsDown(true);
    const issuer = await trustedIssuer([rsa]);
    await expect401(mint(issuer, rsa));
    expect(fetches.get(issuer.url)).toBeUndefined();
  });
});
