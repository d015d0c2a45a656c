/**
 * The per-org lease index in the org's object (src/orgs/lease-index.ts, docs/scale.md): pages
 * chosen in memory and past its window, what an older installation's D1 rows become, the
 * deadlines the object's alarm and the cron poke, and the lists the API answers from it.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { orgEventsStub } from "../../src/events/forward";
import type { OrgEventsObject } from "../../src/events/org-object";
import { ORG_POKE_GRACE_MS, RESIDENT_ROWS, POKE_AGAIN_MS, type OrgLeaseRow } from "../../src/orgs/lease-index";
import { runBackstop } from "../../src/lease/reaper";
import { call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, waitForState } from "./lease-helpers";

let org: TestOrg;
let key: string;

beforeAll(async () => {
  await refreshCatalog();
});

beforeEach(async () => {
  await fastSim();
  org = await createOrg();
  key = (await createKey(org, "write")).secret;
});

const STATES = ["provisioning", "booting", "ready", "stopped", "released"] as const;
const id = (n: number) => `ls_${String(n).padStart(26, "0")}`;
const rowOf = (n: number, over: Partial<OrgLeaseRow> = {}): OrgLeaseRow => ({
  id: id(n),
  state: STATES[n % STATES.length]!,
  kind: n % 3 === 0 ? "job" : "scratch",
  name: n % 7 === 0 ? `n${n % 4}` : null,
  version: 1,
  next_deadline: null,
  created_at: n,
  body: JSON.stringify({ id: id(n), n }),
  ...over,
});

/** Every page of a list, `limit` at a time, as the API pages it (the last id is the next cursor). */
async function allPages(orgId: string, filter: { state?: string; kind?: string; name?: string }, limit: number): Promise<string[]> {
  const stub = orgEventsStub(env, orgId);
  const out: string[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const rows = await stub.listLeases(orgId, { ...filter, before, limit });
    const more = rows.length > limit;
    out.push(...rows.slice(0, limit).map((r) => r.id));
    if (!more) return out;
    before = rows[limit - 1]!.id;
  }
  throw new Error("more than 10,000 pages");
}

describe("the org's lease index", () => {
  it("pages every filter exactly as a scan of all rows would, inside and past the memory window", async () => {
    const stub = orgEventsStub(env, org.id);
    const n = RESIDENT_ROWS * 2 + 37;
    const rows = Array.from({ length: n }, (_, i) => rowOf(i + 1));
    // Written in an order that is not the ids', and some twice with a newer version.
    for (const r of [...rows].reverse()) await stub.sync(org.id, r.id, [], { row: r, deadline: true });
    for (const r of rows.filter((_, i) => i % 50 === 0)) await stub.sync(org.id, r.id, [], { row: { ...r, version: 2, state: "released" }, deadline: true });
    const truth = rows.map((r, i) => (i % 50 === 0 ? { ...r, state: "released" } : r)).sort((a, b) => (a.id < b.id ? 1 : -1));
    const filters = [{}, { state: "ready" }, { state: "released" }, { kind: "job" }, { name: "n1" }, { state: "stopped", kind: "scratch" }];
    for (const f of filters) {
      const want = truth.filter((r) => Object.entries(f).every(([k, v]) => (r as any)[k] === v)).map((r) => r.id);
      for (const limit of [1, 50, 200]) expect(await allPages(org.id, f, limit), JSON.stringify({ f, limit })).toEqual(want);
    }
    // The bodies are the ones written last.
    const first = await stub.listLeases(org.id, { limit: 3, before: null });
    expect(first.map((r) => JSON.parse(r.body).n)).toEqual([n, n - 1, n - 2, n - 3]); // one more: another page follows
    expect(await stub.leaseIndexCounts(org.id)).toMatchObject({ leases: n, live: truth.filter((r) => r.state !== "released").length });
  });

  it("never takes an older version of a row, nor moves the deadline when told not to", async () => {
    const stub = orgEventsStub(env, org.id);
    const r = rowOf(1, { state: "ready", version: 5, next_deadline: Date.now() + 3_600_000 });
    await stub.sync(org.id, r.id, [], { row: r, deadline: true });
    await stub.sync(org.id, r.id, [], { row: { ...r, version: 4, state: "released" }, deadline: true });
    await stub.sync(org.id, r.id, [], { row: { ...r, version: 6, next_deadline: 1 }, deadline: false });
    const [got] = await stub.listLeases(org.id, { limit: 5, before: null });
    expect(JSON.parse(got!.body)).toEqual({ id: r.id, n: 1 });
    expect(await stub.leaseIndexCounts(org.id)).toMatchObject({ leases: 1, live: 1, next_due: r.next_deadline });
  });

  it("finds the due leases in memory, and pokes each once a minute until it writes", async () => {
    const stub = orgEventsStub(env, org.id);
    // Deadlines ten minutes ahead, swept as of twenty minutes ahead: the object's own alarm does not run first.
    const base = Date.now() + 600_000;
    const now = base + 600_000;
    for (let i = 1; i <= 30; i++) await stub.sync(org.id, id(i), [], { row: rowOf(i, { state: "ready", next_deadline: i <= 10 ? base - i : now + 3_600_000 }), deadline: true });
    // No secondary index: a write of a lease is one row; deadlines are found in memory.
    const indexes = await runInDurableObject(stub as unknown as DurableObjectStub<OrgEventsObject>, async (_o, state) =>
      state.storage.sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'leases' AND sql IS NOT NULL`).toArray(),
    );
    expect(indexes).toEqual([]);
    // The object's alarm is 30 s past its earliest due lease (the lease's own alarm comes first).
    const alarm = await runInDurableObject(stub as unknown as DurableObjectStub<OrgEventsObject>, (_o, state) => state.storage.getAlarm());
    expect(alarm).toBe(base - 10 + ORG_POKE_GRACE_MS);
    // No lease object exists for these ids: each poke answers, and the lease waits a minute.
    expect(await stub.sweepDue(org.id, now)).toEqual({ due: 10, failed: 0 });
    expect(await stub.sweepDue(org.id, now)).toEqual({ due: 0, failed: 0 });
    expect((await stub.leaseIndexCounts(org.id)).next_due).toBe(now + POKE_AGAIN_MS);
  });

  it("the cron's backstop asks every org's object", async () => {
    const other = await createOrg();
    const base = Date.now() + 600_000;
    const now = base + 600_000;
    await orgEventsStub(env, org.id).sync(org.id, id(1), [], { row: rowOf(1, { state: "ready", next_deadline: base }), deadline: true });
    await orgEventsStub(env, other.id).sync(other.id, id(2), [], { row: rowOf(2, { state: "ready", next_deadline: base }), deadline: true });
    const report = await runBackstop(env, now);
    expect(report).toMatchObject({ failed: 0 });
    expect((report as { due: number }).due).toBeGreaterThanOrEqual(2);
    expect((report as { orgs: number }).orgs).toBeGreaterThanOrEqual(2);
    for (const o of [org, other]) expect((await orgEventsStub(env, o.id).leaseIndexCounts(o.id)).next_due).toBe(now + POKE_AGAIN_MS);
  });

  it("copies an older installation's D1 rows the first time it is asked, and keeps what leases wrote since", async () => {
    const now = Date.now();
    const rows = Array.from({ length: 1_203 }, (_, i) => rowOf(i + 1, { next_deadline: i === 0 ? now + 60_000 : null }));
    // As the D1 index held them before migrations/0031: body, deadline and all.
    for (let i = 0; i < rows.length; i += 100) {
      await env.DB.batch(
        rows.slice(i, i + 100).map((r) =>
          env.DB.prepare(
            `INSERT INTO leases (id, org_id, kind, state, provider, machine_id, release_reason, next_deadline, created_at, updated_at, version, body, name)
             VALUES (?, ?, ?, ?, 'sim', NULL, NULL, ?, ?, ?, ?, ?, ?)`,
          ).bind(r.id, org.id, r.kind, r.state, r.next_deadline, r.created_at, r.created_at, r.version, r.body, r.name),
        ),
      );
    }
    const stub = orgEventsStub(env, org.id);
    // A lease that writes through first: its row is newer than D1's and is kept.
    await stub.sync(org.id, id(5), [], { row: rowOf(5, { version: 9, state: "released", body: '{"newer":true}' }), deadline: true });
    const ids = await allPages(org.id, {}, 100);
    expect(ids).toEqual(rows.map((r) => r.id).sort().reverse());
    const listed = await stub.listLeases(org.id, { limit: 2000, before: null });
    expect(listed.find((r) => r.id === id(5))!.body).toBe('{"newer":true}');
    expect(listed.find((r) => r.id === id(9))!.body).toBe(rows[8]!.body);
    expect(await stub.leaseIndexCounts(org.id)).toMatchObject({ leases: 1_203, next_due: now + 60_000 });
    // Copied once: a row D1 gains later is not copied again (the index is the org's now).
    await env.DB.prepare(`INSERT INTO leases (id, org_id, kind, state, provider, created_at, updated_at, version, body) VALUES (?, ?, 'job', 'ready', 'sim', 0, 0, 1, '{}')`)
      .bind(id(99_999), org.id)
      .run();
    expect((await stub.leaseIndexCounts(org.id)).leases).toBe(1_203);
  });

  it("GET /v1/leases lists real leases from the index, by state and by name", async () => {
    const a = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" }, name: "alpha" });
    const b = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    await waitForState(key, a.id, "ready");
    await waitForState(key, b.id, "ready");
    await call("POST", `/v1/leases/${b.id}/end`, { key, body: {} });
    await waitForState(key, b.id, "released");
    const all = await json(await call("GET", "/v1/leases", { key }));
    expect(all.data.map((l: { id: string }) => l.id)).toEqual([b.id, a.id]);
    expect(all.data[0].state).toBe("released");
    const ready = await json(await call("GET", "/v1/leases?state=ready", { key }));
    expect(ready.data.map((l: { id: string }) => l.id)).toEqual([a.id]);
    const named = await json(await call("GET", "/v1/leases?name=alpha", { key }));
    expect(named.data.map((l: { id: string }) => l.id)).toEqual([a.id]);
    const one = await json(await call("GET", "/v1/leases?limit=1", { key }));
    expect(one.data.map((l: { id: string }) => l.id)).toEqual([b.id]);
    const next = await json(await call("GET", `/v1/leases?limit=1&cursor=${one.next_cursor}`, { key }));
    expect(next.data.map((l: { id: string }) => l.id)).toEqual([a.id]);
    // D1 keeps the global row, without the deadline (the org's index has it).
    const row = await env.DB.prepare(`SELECT state, next_deadline FROM leases WHERE id = ?`).bind(a.id).first<{ state: string; next_deadline: number | null }>();
    expect(row).toEqual({ state: "ready", next_deadline: null });
    expect((await orgEventsStub(env, org.id).leaseIndexCounts(org.id)).next_due).not.toBeNull();
  });
});
