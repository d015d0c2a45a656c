/**
 * Quotes live in their org's object (src/catalog/quote-store.ts, mounted by `OrgEventsObject`):
 * the store itself with chosen times (its cap, its retention, what a lease keeps, the bad hosts),
 * then through the API: a lease made from a quote reads it there and keeps it, another org's quote
 * id is not found, and quotes made before the move, in D1, still lease and answer.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { QUOTE_TTL_MS, QuoteStore } from "../../src/catalog/quote-store";
import { CREATION_WINDOW_MS } from "../../src/db/creation-caps";
import { QUOTE_RETENTION_MS } from "../../src/db/retention";
import { newId } from "../../src/ids";
import { call, createKey, createOrg, expectError, json, refreshCatalog } from "./helpers";
import { createLease, fastSim } from "./lease-helpers";

const orgObject = (orgId: string) => env.ORG_EVENTS.get(env.ORG_EVENTS.idFromName(orgId));

/** Runs `fn` on a fresh store over a new org object's SQLite (the object's own store is never used). */
function onStore<T>(fn: (store: QuoteStore, sql: SqlStorage) => T): Promise<T> {
  return runInDurableObject(orgObject(`org_store_${crypto.randomUUID()}`), (_o, state) => {
    const store = new QuoteStore(state.storage.sql);
    store.ensureSchema();
    return fn(store, state.storage.sql);
  });
}

const stored = (at: number, body = "{}") => ({ id: newId("qt", at), created_at: at, body });
const T0 = Date.UTC(2026, 11, 6, 12);

describe("the quote store", () => {
  it("answers a quote as stored, and null for an id it never stored", async () => {
    await onStore((store) => {
      const q = stored(T0, JSON.stringify({ a: 1 }));
      expect(store.create(q, [], 10, T0)).toEqual({ ok: true });
      expect(store.get(q.id)).toBe(q.body);
      expect(store.get(newId("qt", T0))).toBeNull();
    });
  });

  it("refuses the quote past the cap with the oldest's time, counts only the window, and counts again after a restart", async () => {
    await onStore((store, sql) => {
      for (let i = 0; i < 3; i++) expect(store.create(stored(T0 + i * 1_000), [], 3, T0 + i * 1_000)).toEqual({ ok: true });
      expect(store.create(stored(T0 + 5_000), [], 3, T0 + 5_000)).toEqual({ ok: false, refused: "cap", oldest_at: T0 });
      // A restart of the object: the window is read back from the table.
      const restarted = new QuoteStore(sql);
      expect(restarted.create(stored(T0 + 6_000), [], 3, T0 + 6_000)).toMatchObject({ ok: false, refused: "cap" });
      // Once the oldest has left the window, one more fits, and only one.
      const later = T0 + CREATION_WINDOW_MS + 1;
      expect(restarted.create(stored(later), [], 3, later)).toEqual({ ok: true });
      expect(restarted.create(stored(later + 1), [], 3, later + 1)).toEqual({ ok: false, refused: "cap", oldest_at: T0 + 1_000 });
      // Refusals stored nothing.
      expect(sql.exec(`SELECT COUNT(*) AS n FROM quotes`).one().n).toBe(4);
    });
  });

  it("deletes quotes a day after they expire, a few at each new quote; a kept one still answers until released", async () => {
    await onStore((store, sql) => {
      const old = [stored(T0), stored(T0 + 1), stored(T0 + 2)];
      for (const q of old) store.create(q, [], 100, q.created_at);
      expect(store.keep(old[1]!.id, "ls_kept")).toBe(true);
      expect(store.keep(newId("qt", T0), "ls_kept")).toBe(false);
      // Not yet due: a day after expiry, to the millisecond.
      const due = T0 + QUOTE_TTL_MS + QUOTE_RETENTION_MS;
      store.create(stored(due - 1), [], 100, due - 1);
      expect(old.map((q) => store.get(q.id) !== null)).toEqual([true, true, true]);
      // Due: two go with each new quote, oldest first.
      store.create(stored(due + 10), [], 100, due + 10);
      expect(sql.exec(`SELECT COUNT(*) AS n FROM quotes WHERE id IN (?, ?, ?)`, ...old.map((q) => q.id)).one().n).toBe(1);
      store.create(stored(due + 11), [], 100, due + 11);
      expect(sql.exec(`SELECT COUNT(*) AS n FROM quotes WHERE id IN (?, ?, ?)`, ...old.map((q) => q.id)).one().n).toBe(0);
      // The one a lease was made from answers from its kept copy; given back, it is gone.
      expect(store.get(old[0]!.id)).toBeNull();
      expect(store.get(old[1]!.id)).toBe(old[1]!.body);
      store.release(old[1]!.id, "ls_kept");
      expect(store.get(old[1]!.id)).toBeNull();
    });
  });

  it("refuses a quote on a host marked bad with every bad host in force, and not once its time has run out", async () => {
    await onStore((store) => {
      store.markBadHost({ host: "sim/h1", reason: "host_failed", until: T0 + 1_000 }, T0);
      store.markBadHost({ host: "sim/h2", reason: "boot_timeout", until: T0 + 5_000 }, T0);
      // Marked again: the later time stays.
      store.markBadHost({ host: "sim/h1", reason: "provider_lost", until: T0 + 500 }, T0);
      expect(store.create(stored(T0), ["sim/h0", "sim/h1"], 10, T0)).toEqual({
        ok: false,
        refused: "bad_hosts",
        bad_hosts: expect.arrayContaining([
          { host: "sim/h1", reason: "provider_lost", until: T0 + 1_000 },
          { host: "sim/h2", reason: "boot_timeout", until: T0 + 5_000 },
        ]),
      });
      expect(store.create(stored(T0), ["sim/h0", "sim/h3"], 10, T0)).toEqual({ ok: true });
      expect(store.create(stored(T0 + 1_000), ["sim/h1"], 10, T0 + 1_000)).toEqual({ ok: true });
      // No hosts to check: stored whatever they are (a quote's last attempt).
      expect(store.create(stored(T0 + 1), [], 10, T0 + 1)).toEqual({ ok: true });
    });
  });
});

describe("quotes through the API", () => {
  let orgA: { id: string; key: string };
  let orgB: { id: string; key: string };

  beforeAll(async () => {
    await fastSim();
    await refreshCatalog();
    for (const set of [(o: typeof orgA) => (orgA = o), (o: typeof orgA) => (orgB = o)]) {
      const org = await createOrg();
      set({ id: org.id, key: (await createKey(org, "write")).secret });
    }
  });

  const quote = async (key: string, spec: object = { gpu: "l4:1", providers: ["sim"] }) => {
    const res = await call("POST", "/v1/quotes", { key, body: { spec, policy: { ttl: "1h" } } });
    expect(res.status).toBe(201);
    return json(res);
  };
  const objectRows = (orgId: string, table: string) =>
    runInDurableObject(orgObject(orgId), (_o, state) => state.storage.sql.exec(`SELECT * FROM ${table}`).toArray() as Array<Record<string, unknown>>);

  it("a quote is stored in its org's object, not D1, exactly as answered", async () => {
    const q = await quote(orgA.key);
    const rows = await objectRows(orgA.id, "quotes");
    expect(rows.find((r) => r.id === q.id)?.body).toBe(JSON.stringify(q));
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM quotes WHERE id = ?").bind(q.id).first("n")).toBe(0);
    expect(await json(await call("GET", `/v1/quotes/${q.id}`, { key: orgA.key }))).toEqual(q);
  });

  it("another org's quote id is not found, to read or to lease", async () => {
    const q = await quote(orgA.key);
    await expectError(await call("GET", `/v1/quotes/${q.id}`, { key: orgB.key }), 404, "not_found");
    await expectError(await call("POST", "/v1/leases", { key: orgB.key, body: { kind: "scratch", quote_id: q.id } }), 404, "not_found");
  });

  it("a lease made from a quote keeps it in the object; a create that made no lease gives it back", async () => {
    const q = await quote(orgA.key);
    const lease = await createLease(orgA.key, { kind: "scratch", quote_id: q.id });
    expect(lease.quote_id).toBe(q.id);
    expect((await objectRows(orgA.id, "kept_quotes")).filter((r) => r.quote_id === q.id)).toEqual([{ quote_id: q.id, lease_id: lease.id, body: JSON.stringify(q) }]);
    await call("POST", `/v1/leases/${lease.id}/end`, { key: orgA.key, body: {} });

    // Refused after the quote was kept (by the org's GPU quota): nothing kept.
    const org = await createOrg();
    const key = (await createKey(org, "write")).secret;
    expect((await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: 1 } })).status).toBe(200);
    const big = await quote(key, { gpu: "l40s:2", providers: ["sim"] });
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", quote_id: big.id } }), 409, "quota_exceeded");
    expect(await objectRows(org.id, "kept_quotes")).toEqual([]);
  });

  it("an expired quote in the object is 409 quote_expired", async () => {
    const q = await quote(orgA.key);
    const id = newId("qt", Date.now() - QUOTE_TTL_MS - 1_000);
    const body = JSON.stringify({ ...q, id, expires_at: new Date(Date.now() - 1_000).toISOString() });
    await runInDurableObject(orgObject(orgA.id), (_o, state) => void state.storage.sql.exec(`INSERT INTO quotes (id, created_at, body) VALUES (?, ?, ?)`, id, Date.now() - QUOTE_TTL_MS - 1_000, body));
    await expectError(await call("POST", "/v1/leases", { key: orgA.key, body: { kind: "scratch", quote_id: id } }), 409, "quote_expired");
  });

  it("a quote made before the move, in D1, still answers and leases, and only for its org", async () => {
    const fresh = await quote(orgA.key);
    const now = Date.now();
    const id = newId("qt", now);
    const legacy = { ...fresh, id };
    await env.DB.prepare("INSERT INTO quotes (id, org_id, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
      .bind(id, orgA.id, JSON.stringify(legacy), now, now + QUOTE_TTL_MS)
      .run();
    expect(await json(await call("GET", `/v1/quotes/${id}`, { key: orgA.key }))).toEqual(legacy);
    await expectError(await call("GET", `/v1/quotes/${id}`, { key: orgB.key }), 404, "not_found");
    const lease = await createLease(orgA.key, { kind: "scratch", quote_id: id });
    expect(lease.quote_id).toBe(id);
    // Kept by the lease's quote_id in D1 (src/db/retention.ts), not copied into the object.
    expect((await objectRows(orgA.id, "kept_quotes")).filter((r) => r.quote_id === id)).toEqual([]);
    await call("POST", `/v1/leases/${lease.id}/end`, { key: orgA.key, body: {} });
  });
});
