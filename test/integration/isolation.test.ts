/**
 * Guarantee 8: another org's object answers 404, exactly like one that does not exist, and asking
 * for it changes nothing. Every route that takes an id belongs in ROUTES.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { newId, type IdPrefix } from "../../src/ids";
import { call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";

interface IdRoute {
  method: string;
  /** `:id` is replaced by the object's id. */
  path: string;
  prefix: IdPrefix;
  /** Makes org A's object; returns its id. */
  make: (a: TestOrg) => Promise<string>;
  /** Asserts org A's object is as it was. */
  unchanged: (a: TestOrg, id: string) => Promise<void>;
  /** A valid body, for routes that take one. */
  body?: unknown;
}

/** A lease of org A, and a check that another org's request left it as it was. */
const leaseRoute = (method: string, path: string, body?: unknown): IdRoute => ({
  method,
  path,
  prefix: "ls",
  body,
  make: async (a) => {
    const res = await call("POST", "/v1/leases", { key: a.adminKey, body: { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: "1h" } } });
    expect(res.status).toBe(202);
    const lease = await json(res);
    leases.set(lease.id, lease);
    return lease.id;
  },
  unchanged: async (a, id) => {
    const res = await call("GET", `/v1/leases/${id}`, { key: a.adminKey });
    expect(res.status).toBe(200);
    const now = await json(res);
    const before = leases.get(id) as { ttl_expires_at: string; lock_until: string | null };
    expect(now.state).not.toMatch(/releasing|released|stopping|stopped/);
    expect(now.ttl_expires_at).toBe(before.ttl_expires_at);
    expect(now.lock_until).toBe(before.lock_until);
    const events = await json(await call("GET", `/v1/leases/${id}/events`, { key: a.adminKey }));
    for (const e of events.data) expect(["created", "provisioning", "machine_created", "ready"]).toContain(e.type);
  },
});

const ROUTES: IdRoute[] = [
  {
    method: "DELETE",
    path: "/v1/keys/:id",
    prefix: "key",
    make: async (a) => {
      const key = await createKey(a, "read");
      keySecrets.set(key.id, key.secret);
      return key.id;
    },
    unchanged: async (a, id) => {
      expect((await call("GET", "/v1/org", { key: keySecrets.get(id)! })).status).toBe(200);
      const list = await json(await call("GET", "/v1/keys", { key: a.adminKey }));
      expect(list.data.find((k: { id: string }) => k.id === id)).toMatchObject({ id, revoked_at: null });
    },
  },
  {
    method: "DELETE",
    path: "/v1/auth/issuers/:id",
    prefix: "iss",
    make: async (a) => {
      const host = `idp-${crypto.randomUUID()}.test`;
      const body = { jwks_url: `https://${host}/jwks`, iss: `https://${host}/`, aud: "lessor" };
      const res = await call("POST", "/v1/auth/issuers", { key: a.adminKey, body });
      expect(res.status).toBe(201);
      return (await json(res)).id;
    },
    unchanged: async (a, id) => {
      const list = await json(await call("GET", "/v1/auth/issuers", { key: a.adminKey }));
      expect(list.data.map((i: { id: string }) => i.id)).toContain(id);
    },
  },
  {
    method: "GET",
    path: "/v1/quotes/:id",
    prefix: "qt",
    make: async (a) => {
      const res = await call("POST", "/v1/quotes", { key: a.adminKey, body: { spec: { gpu: "l40s:1" } } });
      expect(res.status).toBe(201);
      const quote = await json(res);
      quotes.set(quote.id, quote);
      return quote.id;
    },
    unchanged: async (a, id) => {
      const res = await call("GET", `/v1/quotes/${id}`, { key: a.adminKey });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual(quotes.get(id));
    },
  },
];

ROUTES.push({
  method: "GET",
  path: "/v1/receipts/:id",
  prefix: "rc",
  // A receipt is written only by the billing reconciler, after a lease's windows close; this one
  // is written the way it writes them, straight into D1, for org A.
  make: async (a) => {
    const id = newId("rc");
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO receipts (id, org_id, lease_id, provider, gpu_class, status, actual_micro_usd, estimate_micro_usd, components, windows, billed_from, released_at, created_at)
       VALUES (?, ?, ?, 'sim', 'l4', 'settled', 1234, 1200, '{}', '[]', ?, ?, ?)`,
    )
      .bind(id, a.id, newId("ls"), now - 60_000, now - 1_000, now)
      .run();
    const res = await call("GET", `/v1/receipts/${id}`, { key: a.adminKey });
    expect(res.status).toBe(200);
    receipts.set(id, await json(res));
    return id;
  },
  unchanged: async (a, id) => {
    const res = await call("GET", `/v1/receipts/${id}`, { key: a.adminKey });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(receipts.get(id));
  },
});

ROUTES.push(
  leaseRoute("GET", "/v1/leases/:id"),
  leaseRoute("GET", "/v1/leases/:id/events"),
  leaseRoute("POST", "/v1/leases/:id/end", {}),
  leaseRoute("POST", "/v1/leases/:id/stop", {}),
  leaseRoute("POST", "/v1/leases/:id/start", {}),
  leaseRoute("POST", "/v1/leases/:id/extend", { by: "1h" }),
  leaseRoute("POST", "/v1/leases/:id/lock", { for: "1h" }),
  leaseRoute("POST", "/v1/leases/:id/unlock", {}),
  leaseRoute("POST", "/v1/leases/:id/heartbeat", {}),
);

const leases = new Map<string, unknown>();
const keySecrets = new Map<string, string>();
const quotes = new Map<string, unknown>();
const receipts = new Map<string, unknown>();

/** The answer with its request id dropped and the echoed id replaced, for comparison. */
async function normalized(res: Response, id: string) {
  const text = await res.text();
  const body = JSON.parse(text.split(id).join("<id>"));
  expect(typeof body.request_id).toBe("string");
  delete body.request_id;
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    body,
  };
}

describe("guarantee 8: tenants are isolated", () => {
  let a: TestOrg;
  let b: TestOrg;
  beforeAll(async () => {
    await refreshCatalog();
    a = await createOrg("tenant a");
    b = await createOrg("tenant b");
  });

  for (const route of ROUTES) {
    it(`${route.method} ${route.path}: another org's id answers exactly like a missing one`, async () => {
      const theirs = await route.make(a);
      const missing = newId(route.prefix);
      expect(missing.length).toBe(theirs.length);

      const forB = await call(route.method, route.path.replace(":id", theirs), { key: b.adminKey, body: route.body });
      const none = await call(route.method, route.path.replace(":id", missing), { key: b.adminKey, body: route.body });
      const seenByB = await normalized(forB, theirs);
      const notThere = await normalized(none, missing);
      expect(seenByB.status).toBe(404);
      expect(seenByB.body.error.code).toBe("not_found");
      expect(seenByB).toEqual(notThere);
      // The id is echoed, so the normalization did replace something.
      expect(JSON.stringify(seenByB.body)).toContain("<id>");

      // B's failed attempt left A's object as it was.
      await route.unchanged(a, theirs);
    });
  }
});
