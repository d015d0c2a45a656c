/**
 * Orgs and API keys: the bootstrap token, the key format, guarantee 9 (a secret is shown once and
 * stored hashed), scopes, revocation and cursor pagination of GET /v1/keys.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BOOTSTRAP, call, createKey, createOrg, expectError, json, refreshCatalog } from "./helpers";

const KEY_FORMAT = /^lsr_[0-9A-Za-z]{43,}$/;
const KEY_FIELDS = ["created_at", "id", "name", "prefix", "revoked_at", "scope"];

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("POST /v1/orgs", () => {
  it("refuses a missing bootstrap token with 401", async () => {
    const res = await call("POST", "/v1/orgs", { body: { name: "no token" } });
    await expectError(res, 401, "unauthenticated");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="lessor"');
  });

  it("refuses a wrong bootstrap token with 401", async () => {
    const res = await call("POST", "/v1/orgs", { key: `${BOOTSTRAP}x`, body: { name: "wrong token" } });
    await expectError(res, 401, "unauthenticated");
    const prefix = await call("POST", "/v1/orgs", { key: BOOTSTRAP.slice(0, -1), body: { name: "prefix" } });
    await expectError(prefix, 401, "unauthenticated");
  });

  it("checks the token before the body: no token and a bad body is 401, not 400", async () => {
    for (const opts of [{ body: {} }, { raw: "{not json" }, { body: { name: "x", extra: 1 } }]) {
      await expectError(await call("POST", "/v1/orgs", opts), 401, "unauthenticated");
      await expectError(await call("POST", "/v1/orgs", { ...opts, key: "wrong" }), 401, "unauthenticated");
    }
    // With the token, the same bodies are the caller's mistake.
    await expectError(await call("POST", "/v1/orgs", { key: BOOTSTRAP, body: {} }), 400, "invalid_request");
  });

  it("refuses an org admin key with 401", async () => {
    const org = await createOrg();
    const res = await call("POST", "/v1/orgs", { key: org.adminKey, body: { name: "by an admin key" } });
    await expectError(res, 401, "unauthenticated");
  });

  it("creates the org and its admin key, whose secret has the documented format", async () => {
    const res = await call("POST", "/v1/orgs", { key: BOOTSTRAP, body: { name: "acme" } });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(["key", "org"]);
    expect(body.org).toEqual({ id: expect.stringMatching(/^org_[0-9a-z]{26}$/), name: "acme", created_at: expect.any(String) });
    expect(Object.keys(body.key).sort()).toEqual([...KEY_FIELDS, "secret"].sort());
    expect(body.key.secret).toMatch(KEY_FORMAT);
    expect(body.key).toMatchObject({ id: expect.stringMatching(/^key_/), name: "admin", scope: "admin", revoked_at: null });
    expect(body.key.prefix).toBe(body.key.secret.slice(0, 10));

    const org = await call("GET", "/v1/org", { key: body.key.secret });
    expect(org.status).toBe(200);
    expect(await json(org)).toEqual({
      ...body.org,
      caller: { kind: "api_key", scope: "admin", subject: body.key.id },
    });
  });
});

describe("guarantee 9: a key's secret is shown once and stored hashed", () => {
  it("never lists the secret, and D1 holds only its SHA-256", async () => {
    const org = await createOrg();
    const key = await createKey(org, "read");
    expect(key.secret).toMatch(KEY_FORMAT);

    const res = await call("GET", "/v1/keys", { key: org.adminKey });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(key.secret);
    expect(text).not.toContain(org.adminKey);
    // Not even the part after the display prefix.
    expect(text).not.toContain(key.secret.slice(10));
    const list = JSON.parse(text);
    expect(list.next_cursor).toBeNull();
    expect(list.data).toHaveLength(2);
    for (const item of list.data) expect(Object.keys(item).sort()).toEqual(KEY_FIELDS);
    const listed = list.data.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ id: key.id, prefix: key.secret.slice(0, 10), scope: "read", revoked_at: null });

    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(key.id).first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(row!.hash).toBe(await sha256Hex(key.secret));
    expect(row!.hash).toMatch(/^[0-9a-f]{64}$/);
    for (const value of Object.values(row!)) {
      if (typeof value === "string") expect(value.includes(key.secret.slice(10))).toBe(false);
    }
  });
});

describe("scopes", () => {
  beforeAll(async () => {
    await refreshCatalog();
  });

  it("a read key reads the catalog but may not quote", async () => {
    const org = await createOrg();
    const read = await createKey(org, "read");
    const gpus = await call("GET", "/v1/catalog/gpus", { key: read.secret });
    expect(gpus.status).toBe(200);
    const quote = await call("POST", "/v1/quotes", { key: read.secret, body: { spec: { gpu: "l40s:1" } } });
    const err = await expectError(quote, 403, "insufficient_scope");
    expect(err.details).toEqual({ needed: "write", have: "read" });
  });

  it("a write key quotes but may not manage keys", async () => {
    const org = await createOrg();
    const write = await createKey(org, "write");
    const quote = await call("POST", "/v1/quotes", { key: write.secret, body: { spec: { gpu: "l40s:1" } } });
    expect(quote.status).toBe(201);
    expect((await json(quote)).id).toMatch(/^qt_/);
    await expectError(
      await call("POST", "/v1/keys", { key: write.secret, body: { name: "escalate", scope: "admin" } }),
      403,
      "insufficient_scope",
    );
    await expectError(await call("GET", "/v1/keys", { key: write.secret }), 403, "insufficient_scope");
    const other = await createKey(org, "read");
    await expectError(await call("DELETE", `/v1/keys/${other.id}`, { key: write.secret }), 403, "insufficient_scope");
    // And nothing was created by the refused POST.
    const list = await json(await call("GET", "/v1/keys", { key: org.adminKey }));
    expect(list.data.map((k: { name: string }) => k.name).sort()).toEqual(["admin", "read key", "write key"]);
  });

  it("an admin key creates, lists and revokes keys", async () => {
    const org = await createOrg();
    const created = await call("POST", "/v1/keys", { key: org.adminKey, body: { name: "ci", scope: "write" } });
    expect(created.status).toBe(201);
    const key = await json(created);
    expect(key).toMatchObject({ name: "ci", scope: "write", revoked_at: null, secret: expect.stringMatching(KEY_FORMAT) });
    const list = await json(await call("GET", "/v1/keys", { key: org.adminKey }));
    expect(list.data.map((k: { id: string }) => k.id)).toContain(key.id);
    const revoked = await call("DELETE", `/v1/keys/${key.id}`, { key: org.adminKey });
    expect(revoked.status).toBe(200);
    const body = await json(revoked);
    expect(body).toMatchObject({ id: key.id, name: "ci", revoked_at: expect.any(String) });
    expect(body.secret).toBeUndefined();
  });
});

describe("revocation", () => {
  it("a revoked key fails with 401 on its very next request", async () => {
    const org = await createOrg();
    const key = await createKey(org, "read");
    expect((await call("GET", "/v1/org", { key: key.secret })).status).toBe(200);
    expect((await call("DELETE", `/v1/keys/${key.id}`, { key: org.adminKey })).status).toBe(200);
    const res = await call("GET", "/v1/org", { key: key.secret });
    await expectError(res, 401, "unauthenticated");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="lessor"');
    // The org's other keys are unaffected.
    expect((await call("GET", "/v1/org", { key: org.adminKey })).status).toBe(200);
  });

  it("an admin key can revoke itself, and then it fails too", async () => {
    const org = await createOrg();
    const list = await json(await call("GET", "/v1/keys", { key: org.adminKey }));
    const self = list.data[0].id;
    expect((await call("DELETE", `/v1/keys/${self}`, { key: org.adminKey })).status).toBe(200);
    await expectError(await call("GET", "/v1/keys", { key: org.adminKey }), 401, "unauthenticated");
  });
});

describe("GET /v1/keys pagination", () => {
  it("serves every key exactly once across pages of 2", async () => {
    const org = await createOrg();
    const made = [];
    for (let i = 0; i < 4; i++) made.push((await createKey(org, "read")).id);
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const q: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const res = await call("GET", `/v1/keys?limit=2${q}`, { key: org.adminKey });
      expect(res.status).toBe(200);
      const page = await json(res);
      pageSizes.push(page.data.length);
      seen.push(...page.data.map((k: { id: string }) => k.id));
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(pageSizes).toEqual([2, 2, 1]);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual([...seen].sort());
    for (const id of made) expect(seen).toContain(id);
  });

  it("refuses a cursor it did not issue with 400 invalid_cursor", async () => {
    const org = await createOrg();
    for (const bad of ["not-a-cursor!", "bm90IGpzb24", btoa(JSON.stringify({ k: 1 })), btoa("null"), btoa("1")]) {
      const res = await call("GET", `/v1/keys?cursor=${encodeURIComponent(bad)}`, { key: org.adminKey });
      await expectError(res, 400, "invalid_cursor");
    }
  });

  it("refuses limits outside 1..200 with 400", async () => {
    const org = await createOrg();
    for (const limit of ["0", "201", "abc", "-1"]) {
      await expectError(await call("GET", `/v1/keys?limit=${limit}`, { key: org.adminKey }), 400, "invalid_request");
    }
  });
});
