/**
 * Orgs' own provider keys: encrypted at rest, bound to their row, never shown again, and what an
 * org can rent from follows them (guarantee 9 for provider keys).
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { database } from "../../src/db";
import { decryptProviderKey, encryptProviderKey, providerCredentials, storeProviderKey } from "../../src/providers/credentials";
import { catalogProviders, providerAccounts, usableProviderNames } from "../../src/providers/registry";
import { RunPodProvider } from "../../src/providers/runpod/adapter";
import { STUB_API_KEYS, STUB_LAMBDA_SSH_KEY_NAME, STUB_PROVIDERS, stubCloudsViolations } from "../support/stub-clouds-admin";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, waitForState } from "./lease-helpers";
import { PROVIDER_NAMES } from "../../src/providers/names";

const MASTER = { LESSOR_MASTER_KEY: env.LESSOR_MASTER_KEY };
const SECRET = "rp_live_0123456789abcdefghijklmnopqrstuvwxyz";

describe("provider key encryption", () => {
  it("round-trips, and the ciphertext holds nothing of the key", async () => {
    const sealed = await encryptProviderKey(MASTER, "org_a", "runpod", SECRET);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET.slice(0, 8));
    expect(await decryptProviderKey(MASTER, "org_a", "runpod", sealed)).toBe(SECRET);
    // A fresh IV every time: the same key never seals to the same text.
    expect(await encryptProviderKey(MASTER, "org_a", "runpod", SECRET)).not.toBe(sealed);
  });

  it("a ciphertext moved to another org or provider, or read under another master key, does not open", async () => {
    const sealed = await encryptProviderKey(MASTER, "org_a", "runpod", SECRET);
    expect(await decryptProviderKey(MASTER, "org_b", "runpod", sealed)).toBeNull();
    expect(await decryptProviderKey(MASTER, "org_a", "vast", sealed)).toBeNull();
    expect(await decryptProviderKey({ LESSOR_MASTER_KEY: "another-master-key-0123456789abcdefghij" }, "org_a", "runpod", sealed)).toBeNull();
    const [v, iv, body] = sealed.split(".");
    // One character of the sealed body changed (the second to last, whose six bits are all data).
    const at = body!.length - 2;
    const flipped = `${v}.${iv}.${body!.slice(0, at)}${body![at] === "A" ? "B" : "A"}${body!.slice(at + 1)}`;
    expect(flipped).not.toBe(sealed);
    expect(await decryptProviderKey(MASTER, "org_a", "runpod", flipped)).toBeNull();
  });

  it("without a master key of at least 32 characters nothing is encrypted", async () => {
    await expect(encryptProviderKey({ LESSOR_MASTER_KEY: "short" }, "org_a", "runpod", SECRET)).rejects.toMatchObject({ status: 503, code: "provider_keys_disabled" });
    await expect(encryptProviderKey({}, "org_a", "runpod", SECRET)).rejects.toMatchObject({ status: 503 });
  });
});

describe("the providers routes", () => {
  let org: TestOrg;
  let readKey: string;

  beforeAll(async () => {
    org = await createOrg();
    readKey = (await createKey(org, "read")).secret;
  });

  it("lists every enabled provider with its capabilities; the sim needs no key, the others are not configured", async () => {
    const res = await call("GET", "/v1/providers", { key: readKey });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    const byName = Object.fromEntries(data.map((p: any) => [p.name, p]));
    expect(Object.keys(byName)).toEqual([...PROVIDER_NAMES]);
    expect(byName.sim).toMatchObject({ needs_key: false, configured: true, usable: true, verification: { status: "ok" } });
    for (const name of STUB_PROVIDERS) {
      expect(byName[name]).toMatchObject({ needs_key: true, configured: false, usable: false, verification: { status: "never", at: null } });
    }
    expect(byName.lambda.capabilities).toMatchObject({ stop: false, start: false, billing_records: false });
    expect(byName.lambda.option_fields).toEqual([expect.objectContaining({ name: "ssh_key_name", required: true })]);
  });

  it("refuses what it cannot store: the sim's key, an unknown provider, a missing option, a read key", async () => {
    await expectError(await call("PUT", "/v1/providers/sim", { key: org.adminKey, body: { api_key: "x" } }), 400, "provider_needs_no_key");
    await expectError(await call("PUT", "/v1/providers/nimbus", { key: org.adminKey, body: { api_key: "x" } }), 404, "not_found");
    const missing = await expectError(await call("PUT", "/v1/providers/lambda", { key: org.adminKey, body: { api_key: "secret_abc" } }), 400, "invalid_request");
    expect(missing.details.missing).toEqual(["ssh_key_name"]);
    const unknown = await expectError(await call("PUT", "/v1/providers/runpod", { key: org.adminKey, body: { api_key: "secret_abc", options: { region: "x" } } }), 400, "invalid_request");
    expect(unknown.details.unknown).toEqual(["region"]);
    await expectError(await call("PUT", "/v1/providers/runpod", { key: readKey, body: { api_key: "secret_abc" } }), 403, "insufficient_scope");
    await expectError(await call("PUT", "/v1/providers/runpod", { key: org.adminKey, body: { api_key: "has space" } }), 400, "invalid_request");
    await expectError(await call("DELETE", "/v1/providers/runpod", { key: org.adminKey }), 404, "not_found");
    await expectError(await call("POST", "/v1/providers/runpod/verify", { key: org.adminKey }), 404, "not_found");
  });

  it("what an org may rent from follows its own keys, and no other org's", async () => {
    const other = await createOrg();
    const db = database(env.DB);
    expect(await usableProviderNames(env, db, org.id)).toEqual(["sim"]);
    await storeProviderKey(db, env, other.id, "vast", { api_key: SECRET, options: {} }, Date.now());
    expect(await usableProviderNames(env, db, org.id)).toEqual(["sim"]);
    expect(await usableProviderNames(env, db, other.id)).toEqual(["sim", "vast"]);
    // The stored row holds ciphertext only, and opens only as the other org's vast key.
    const row = await env.DB.prepare("SELECT * FROM provider_keys WHERE org_id = ?").bind(other.id).first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(await providerCredentials(db, env, other.id, "vast")).toEqual({ api_key: SECRET, options: {} });
    expect(await providerCredentials(db, env, org.id, "vast")).toBeNull();
    // Its account is reconciled with its key; the catalog reads the vast market with it.
    const accounts = await providerAccounts(env, db);
    expect(accounts.filter((a) => a.provider.name === "vast").map((a) => a.account)).toContain(other.id);
    expect((await catalogProviders(env, db)).markets.map((m) => m.name)).toContain("vast");
    // A key sealed under another master key (or tampered with) is no account at all.
    const third = await createOrg();
    await storeProviderKey(db, { LESSOR_MASTER_KEY: "another-master-key-0123456789abcdefghij" }, third.id, "vast", { api_key: SECRET, options: {} }, Date.now());
    const vastAccounts = (await providerAccounts(env, db)).filter((a) => a.provider.name === "vast").map((a) => a.account);
    expect(vastAccounts).toContain(other.id);
    expect(vastAccounts).not.toContain(third.id);
    await env.DB.prepare("DELETE FROM provider_keys WHERE org_id = ?").bind(third.id).run();
    // The answers never carry it.
    const listed = await call("GET", "/v1/providers", { key: other.adminKey });
    const text = await listed.text();
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text).data.find((p: any) => p.name === "vast")).toMatchObject({ configured: true, usable: true, verification: { status: "never" } });
    await env.DB.prepare("DELETE FROM provider_keys WHERE org_id = ?").bind(other.id).run();
  });

  it("a spec naming only providers the org has no key for is answered provider_not_configured, not no_capacity", async () => {
    const writeKey = (await createKey(org, "write")).secret;
    const res = await call("POST", "/v1/quotes", { key: writeKey, body: { spec: { gpu: "h100:1", providers: ["runpod"] } } });
    const error = await expectError(res, 409, "provider_not_configured");
    expect(error.details.providers).toEqual(["runpod"]);
    expect(error.message).toContain("PUT /v1/providers/runpod");
  });
});

const stubs = inject("stubClouds");

describe.skipIf(!stubs)("provider keys against the stub clouds (each provider's own document)", () => {
  let org: TestOrg;
  let writeKey: string;
  const logged: string[] = [];

  beforeAll(async () => {
    org = await createOrg();
    writeKey = (await createKey(org, "write")).secret;
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      const original = console[method].bind(console);
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
        original(...args);
      });
    }
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    // Whatever happened, no log line carried a provider key.
    for (const secret of Object.values(STUB_API_KEYS)) expect(logged.filter((l) => l.includes(secret))).toEqual([]);
    const { violations } = await stubCloudsViolations(stubs!.url);
    for (const [provider, list] of Object.entries(violations)) expect(list, provider).toEqual([]);
  });

  it("a key the provider refuses is not stored: 422, and the org still cannot rent there", async () => {
    const res = await call("PUT", "/v1/providers/runpod", { key: org.adminKey, body: { api_key: "rp_wrong_key_000" } });
    const error = await expectError(res, 422, "provider_key_refused");
    expect(error.message).toContain("auth");
    expect(JSON.stringify(error)).not.toContain("rp_wrong_key_000");
    expect(await usableProviderNames(env, database(env.DB), org.id)).toEqual(["sim"]);
    const lambda = await call("PUT", "/v1/providers/lambda", { key: org.adminKey, body: { api_key: STUB_API_KEYS.lambda, options: { ssh_key_name: "nobody" } } });
    expect((await expectError(lambda, 422, "provider_key_refused")).message).toContain('no SSH key named "nobody"');
  });

  it("a working key is verified by one read, stored, listed without itself, and makes the provider's offers quotable", async () => {
    for (const name of STUB_PROVIDERS) {
      const body = { api_key: STUB_API_KEYS[name], ...(name === "lambda" ? { options: { ssh_key_name: STUB_LAMBDA_SSH_KEY_NAME } } : {}) };
      const res = await call("PUT", `/v1/providers/${name}`, { key: org.adminKey, body });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(text).not.toContain(STUB_API_KEYS[name]);
      expect(JSON.parse(text)).toMatchObject({ name, configured: true, usable: true, verification: { status: "ok", error: null } });
    }
    const listed = await call("GET", "/v1/providers", { key: writeKey });
    const text = await listed.text();
    for (const secret of Object.values(STUB_API_KEYS)) expect(text).not.toContain(secret);
    expect(JSON.parse(text).data.find((p: any) => p.name === "lambda").options).toEqual({ ssh_key_name: STUB_LAMBDA_SSH_KEY_NAME });

    await refreshCatalog();
    for (const name of STUB_PROVIDERS) {
      const quote = await call("POST", "/v1/quotes", { key: writeKey, body: { spec: { gpu: "l40s:1", providers: [name] } } });
      expect(quote.status, await quote.clone().text()).toBe(201);
      expect((await json(quote)).offer.provider).toBe(name);
    }
    // Another org, without keys, is offered none of them.
    const other = await createOrg();
    const offers = await json(await call("GET", "/v1/catalog/offers?limit=200&provider=runpod", { key: other.adminKey }));
    expect(offers.data).toEqual([]);
  });

  it("replacing a key is refused while the new key does not see every machine of the org's live leases (409 provider_account_mismatch, nothing changed)", async () => {
    const lease = await createLease(writeKey, { kind: "scratch", spec: { gpu: "l4:1", providers: ["runpod"] } });
    await waitForState(writeKey, lease.id, "ready", 30_000);
    const before = await env.DB.prepare("SELECT ciphertext, updated_at FROM provider_keys WHERE org_id = ? AND provider = 'runpod'").bind(org.id).first();
    // A key of another account: the provider accepts it, and its account lists none of lessor's machines.
    const listed: string[] = [];
    const spy = vi.spyOn(RunPodProvider.prototype, "listMachines").mockImplementation(async (prefix: string) => {
      listed.push(prefix);
      return [];
    });
    try {
      const refused = await expectError(await call("PUT", "/v1/providers/runpod", { key: org.adminKey, body: { api_key: STUB_API_KEYS.runpod } }), 409, "provider_account_mismatch");
      expect(refused.details).toMatchObject({ provider: "runpod", live_machines: 1, not_seen: 1, leases: [lease.id] });
      expect(refused.message).toContain("nothing was changed");
      // One list, by this installation's label prefix.
      expect(listed).toEqual(["lessor-dev-"]);
    } finally {
      spy.mockRestore();
    }
    expect(await env.DB.prepare("SELECT ciphertext, updated_at FROM provider_keys WHERE org_id = ? AND provider = 'runpod'").bind(org.id).first()).toEqual(before);

    // A key that sees the machine replaces it.
    const replaced = await call("PUT", "/v1/providers/runpod", { key: org.adminKey, body: { api_key: STUB_API_KEYS.runpod } });
    expect(replaced.status, await replaced.clone().text()).toBe(200);
    await call("POST", `/v1/leases/${lease.id}/end`, { key: writeKey, body: {} });
    await waitForState(writeKey, lease.id, "released", 30_000);
  });

  it("re-verifying answers the provider's word now; a lease holding a machine keeps its key from being deleted", async () => {
    const verified = await json(await call("POST", "/v1/providers/vast/verify", { key: org.adminKey }));
    expect(verified.verification.status).toBe("ok");

    const lease = await createLease(writeKey, { kind: "scratch", spec: { gpu: "l4:1", providers: ["vast"] } });
    await waitForState(writeKey, lease.id, "ready", 30_000);
    const refused = await expectError(await call("DELETE", "/v1/providers/vast", { key: org.adminKey }), 409, "provider_in_use");
    expect(refused.details.live_leases).toBe(1);
    await call("POST", `/v1/leases/${lease.id}/end`, { key: writeKey, body: {} });
    await waitForState(writeKey, lease.id, "released", 30_000);
    // Nothing about the key went into the lease's events.
    const evs = JSON.stringify(await events(writeKey, lease.id));
    expect(evs).not.toContain(STUB_API_KEYS.vast);

    const deleted = await call("DELETE", "/v1/providers/vast", { key: org.adminKey });
    expect(deleted.status).toBe(200);
    expect(await json(deleted)).toMatchObject({ name: "vast", configured: false, usable: false });
    await expectError(await call("POST", "/v1/quotes", { key: writeKey, body: { spec: { gpu: "l4:1", providers: ["vast"] } } }), 409, "provider_not_configured");
  });
});
