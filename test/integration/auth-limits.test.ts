/**
 * Per-org and per-client limits (src/auth/limits.ts, src/auth/admission.ts; docs/storage.md).
 *
 * - At most 100 live API keys per org (issuers: jwt.test.ts), counted in the insert itself.
 * - An org's request budget, all its credentials together, on top of each credential's.
 * - Failed authentications (unknown key, bad JWT, wrong bootstrap token) are limited per client
 *   address; an unknown key creates no storage.
 *
 * vitest.config.ts sets LESSOR_AUTH_FAILURES_PER_MINUTE very high for every other file (they send
 * bad credentials on purpose, from no address). Here requests that need other settings go through
 * the Worker's own fetch handler with the settings overridden (unset: the defaults), and the clock
 * is frozen (vi fake Date: the Worker and its objects run in this isolate), as rate-limit.test.ts
 * does.
 */
import { createExecutionContext, env, listDurableObjectIds } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../functions/index";
import { DEFAULT_AUTH_FAILURES_PER_MINUTE, DEFAULT_ORG_RATE_LIMIT_PER_MINUTE, ORG_BUDGET_BATCH } from "../../src/auth/admission";
import { MAX_LIVE_API_KEYS } from "../../src/auth/limits";
import { sha256Hex } from "../../src/ids";
import { BASE, BOOTSTRAP, call, createKey, createOrg, expectError, json } from "./helpers";

type Settings = Partial<Record<keyof typeof env, string | undefined>>;

async function direct(
  method: string,
  path: string,
  opts: { key?: string; ip?: string; body?: unknown; settings?: Settings } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.ip) headers["cf-connecting-ip"] = opts.ip;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const req = new Request(`${BASE}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  return await worker.fetch(req, { ...env, ...opts.settings } as typeof env, createExecutionContext());
}

/** The defaults, as a deployment without these settings has them. */
const DEFAULTS: Settings = { LESSOR_AUTH_FAILURES_PER_MINUTE: undefined, LESSOR_ORG_RATE_LIMIT_PER_MINUTE: undefined };

const unknownKey = () => `lsr_${crypto.randomUUID().replace(/-/g, "").padEnd(43, "x").slice(0, 43)}`;

afterEach(() => {
  vi.useRealTimers();
});

describe("at most 100 live API keys per org", () => {
  it("past the limit 409 limit_reached naming it; concurrent creates do not pass it; a revoked key frees a place", async () => {
    const org = await createOrg();
    // The admin key is one; fill up to three short of the limit directly in D1.
    const fill = Array.from({ length: MAX_LIVE_API_KEYS - 4 }, (_, i) =>
      env.DB.prepare("INSERT INTO api_keys (id, org_id, name, prefix, hash, scope, created_at) VALUES (?, ?, 'fill', 'lsr_xxxxxx', ?, 'read', 0)").bind(
        `key_fill_${org.id}_${i}`,
        org.id,
        `fill-${org.id}-${i}`,
      ),
    );
    await env.DB.batch(fill);
    // Eight creates at once for the last three places.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call("POST", "/v1/keys", { key: org.adminKey, body: { name: `k${i}`, scope: "read" } })),
    );
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(3);
    for (const r of answers.filter((r) => r.status !== 201)) {
      const err = await expectError(r, 409, "limit_reached");
      expect(err.details).toEqual({ limit: "api_keys", max: 100 });
      expect(err.message).toContain("100");
    }
    const live = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE org_id = ? AND revoked_at IS NULL").bind(org.id).first<{ n: number }>();
    expect(live?.n).toBe(MAX_LIVE_API_KEYS);
    // Revoking one frees its place; revoked keys do not count.
    const one = await json(created[0]!);
    expect((await call("DELETE", `/v1/keys/${one.id}`, { key: org.adminKey })).status).toBe(200);
    expect((await call("POST", "/v1/keys", { key: org.adminKey, body: { name: "again", scope: "read" } })).status).toBe(201);
    await expectError(await call("POST", "/v1/keys", { key: org.adminKey, body: { name: "over", scope: "read" } }), 409, "limit_reached");
    // Another org is not affected.
    const other = await createOrg();
    expect((await call("POST", "/v1/keys", { key: other.adminKey, body: { name: "k", scope: "read" } })).status).toBe(201);
  });
});

describe("an org's request budget", () => {
  it("is shared by all its credentials, on top of each credential's, and another org is not affected", async () => {
    const org = await createOrg();
    const [a, b] = [await createKey(org, "read"), await createKey(org, "read")];
    const other = await createOrg();
    const settings = { LESSOR_ORG_RATE_LIMIT_PER_MINUTE: "5" };
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.UTC(2032, 0, 1);
    vi.setSystemTime(t0);
    for (const key of [a.secret, a.secret, a.secret, b.secret, b.secret]) {
      expect((await direct("GET", "/v1/org", { key, settings })).status).toBe(200);
    }
    // Each key has spent little of its own budget, but the org has spent its 5.
    for (const key of [a.secret, b.secret, org.adminKey]) {
      const over = await direct("GET", "/v1/org", { key, settings });
      const retryAfter = over.headers.get("retry-after");
      const err = await expectError(over, 429, "rate_limited");
      expect(err.details).toEqual({ budget: "org", limit_per_minute: 5, retry_after_s: Number(retryAfter) });
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    }
    expect((await direct("GET", "/v1/org", { key: other.adminKey, settings })).status).toBe(200);
    // Once Retry-After has passed, the org is served again.
    vi.setSystemTime(t0 + 12_000);
    expect((await direct("GET", "/v1/org", { key: b.secret, settings })).status).toBe(200);
  });

  it("is taken from the org's object a batch at a time, never beyond what it grants", async () => {
    const org = await createOrg();
    const settings = { LESSOR_ORG_RATE_LIMIT_PER_MINUTE: String(ORG_BUDGET_BATCH * 3) };
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2032, 2, 1));
    for (let i = 0; i < ORG_BUDGET_BATCH + 1; i++) expect((await direct("GET", "/v1/org", { key: org.adminKey, settings })).status).toBe(200);
    // Eleven requests asked the object twice: two batches are gone from its bucket.
    const stub = env.LIMITER.get(env.LIMITER.idFromName(`org:${org.id}`));
    expect(await stub.take(ORG_BUDGET_BATCH * 3)).toMatchObject({ allowed: true, remaining: ORG_BUDGET_BATCH - 1, granted: 1 });
    // A batch held longer than a second is dropped, not spent: the next request asks the object.
    vi.setSystemTime(Date.UTC(2032, 2, 1) + 1_500);
    expect((await direct("GET", "/v1/org", { key: org.adminKey, settings })).status).toBe(200);
    // It took what the bucket had refilled to (9 and three quarters): none is left for another.
    expect(await stub.take(ORG_BUDGET_BATCH * 3)).toMatchObject({ allowed: false, granted: 0 });
  });

  it("defaults to 6,000 a minute", async () => {
    const org = await createOrg();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2032, 1, 1));
    const res = await direct("GET", "/v1/org", { key: org.adminKey, settings: DEFAULTS });
    expect(res.status).toBe(200);
    expect(DEFAULT_ORG_RATE_LIMIT_PER_MINUTE).toBe(6000);
    // One request took a batch of the org's units (the isolate spends the rest itself): the bucket
    // holds 6,000 less the batch.
    const stub = env.LIMITER.get(env.LIMITER.idFromName(`org:${org.id}`));
    expect(await stub.take(6000)).toMatchObject({ allowed: true, remaining: 6000 - ORG_BUDGET_BATCH - 1, granted: 1 });
  });
});

describe("failed authentications per client address", () => {
  it("60 a minute by default, then 429 rate_limited with Retry-After, for every kind of failure", async () => {
    const ip = "198.51.100.23";
    const org = await createOrg();
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.UTC(2033, 0, 1);
    vi.setSystemTime(t0);
    expect(DEFAULT_AUTH_FAILURES_PER_MINUTE).toBe(60);
    // 60 failures of three kinds: unknown keys, tokens that are not valid JWTs, a wrong bootstrap token.
    for (let i = 0; i < 60; i++) {
      const res =
        i % 3 === 0
          ? await direct("GET", "/v1/org", { key: unknownKey(), ip, settings: DEFAULTS })
          : i % 3 === 1
            ? await direct("GET", "/v1/org", { key: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", ip, settings: DEFAULTS })
            : await direct("POST", "/v1/orgs", { key: `${BOOTSTRAP}-wrong`, ip, body: { name: "x" }, settings: DEFAULTS });
      await expectError(res, 401, "unauthenticated");
    }
    for (const res of [
      await direct("GET", "/v1/org", { key: unknownKey(), ip, settings: DEFAULTS }),
      await direct("GET", "/v1/catalog/gpus", { key: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", ip, settings: DEFAULTS }),
      await direct("POST", "/v1/orgs", { key: "wrong", ip, body: { name: "x" }, settings: DEFAULTS }),
      await direct("GET", "/v1/sim/faults", { key: "wrong", ip, settings: DEFAULTS }),
    ]) {
      const retryAfter = res.headers.get("retry-after");
      const err = await expectError(res, 429, "rate_limited");
      expect(err.details).toEqual({ budget: "auth_failures", limit_per_minute: 60, retry_after_s: Number(retryAfter) });
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // A valid credential from the same address is served: only failures are counted and refused.
    expect((await direct("GET", "/v1/org", { key: org.adminKey, ip, settings: DEFAULTS })).status).toBe(200);
    expect((await direct("POST", "/v1/orgs", { key: BOOTSTRAP, ip, body: { name: "ok" }, settings: DEFAULTS })).status).toBe(201);
    // Another address has its own budget.
    await expectError(await direct("GET", "/v1/org", { key: unknownKey(), ip: "198.51.100.24", settings: DEFAULTS }), 401, "unauthenticated");
    // Retry-After is honest.
    vi.setSystemTime(t0 + 1_000);
    await expectError(await direct("GET", "/v1/org", { key: unknownKey(), ip, settings: DEFAULTS }), 401, "unauthenticated");
  });

  it("without CF-Connecting-IP every failure shares one bucket, as the setting says", async () => {
    // The shared bucket is every test's that sends no address: its clock stays the real one (a
    // bucket drained in a frozen future would stay drained until then). A bucket holds at most its
    // limit, so it starts here with 3.
    const settings = { LESSOR_AUTH_FAILURES_PER_MINUTE: "3" };
    const t = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t);
    for (let i = 0; i < 3; i++) await expectError(await direct("GET", "/v1/org", { key: unknownKey(), settings }), 401);
    await expectError(await direct("GET", "/v1/org", { key: unknownKey(), settings }), 429, "rate_limited");
    await expectError(await direct("GET", "/v1/org", { key: unknownKey(), ip: "garbage", settings }), 429, "rate_limited");
  });

  it("a missing credential is not a failed authentication", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2033, 2, 1));
    const settings = { LESSOR_AUTH_FAILURES_PER_MINUTE: "1" };
    const ip = "198.51.100.40";
    for (let i = 0; i < 3; i++) await expectError(await direct("GET", "/v1/org", { ip, settings }), 401, "unauthenticated");
    await expectError(await direct("GET", "/v1/org", { key: unknownKey(), ip, settings }), 401, "unauthenticated");
    await expectError(await direct("GET", "/v1/org", { key: unknownKey(), ip, settings }), 429, "rate_limited");
  });

  it("an unknown or revoked key creates no object and no storage", async () => {
    const org = await createOrg();
    const revoked = await createKey(org, "read");
    expect((await call("DELETE", `/v1/keys/${revoked.id}`, { key: org.adminKey })).status).toBe(200);
    const before = await listDurableObjectIds(env.API_KEY);
    const limitersBefore = await listDurableObjectIds(env.LIMITER);
    const guesses = Array.from({ length: 20 }, unknownKey);
    for (const key of guesses) await expectError(await direct("GET", "/v1/org", { key, ip: "198.51.100.50" }), 401, "unauthenticated");
    const after = await listDurableObjectIds(env.API_KEY);
    expect(after.length).toBe(before.length);
    for (const key of guesses) {
      const id = env.API_KEY.idFromName(await sha256Hex(key));
      expect(after.some((x) => x.equals(id))).toBe(false);
    }
    // Twenty failures from one address made at most one object: that address's bucket.
    expect((await listDurableObjectIds(env.LIMITER)).length - limitersBefore.length).toBeLessThanOrEqual(1);
    // A known key still goes to its object, and a revoked one is refused.
    expect((await call("GET", "/v1/org", { key: org.adminKey })).status).toBe(200);
    await expectError(await call("GET", "/v1/org", { key: revoked.secret }), 401, "unauthenticated");
  });
});
