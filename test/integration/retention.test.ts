/**
 * Retention (docs/design.md "Retention"): expired quotes no lease refers to, idempotency records and
 * provider webhook event ids go after 24 hours, in bounded batches run by the cron; quotes leases refer to stay.
 * The quotes here are D1's, made before quotes moved to their org's object (which deletes its own,
 * quote-store.test.ts).
 */
import { createScheduledController, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../functions/index";
import { database } from "../../src/db";
import { QUOTE_RETENTION_MS, runRetention } from "../../src/db/retention";
import { IDEMPOTENCY_WINDOW_MS } from "../../src/idempotency";
import { INGRESS_DEDUP_WINDOW_MS } from "../../src/ingress/dedup";
import { newId } from "../../src/ids";
import { call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, waitForState } from "./lease-helpers";

const HOUR = 3_600_000;
let org: TestOrg;
let writeKey: string;

beforeAll(async () => {
  org = await createOrg();
  writeKey = (await createKey(org, "write")).secret;
  await fastSim();
  await refreshCatalog();
});

async function quote(headers: Record<string, string> = {}) {
  const res = await call("POST", "/v1/quotes", { key: writeKey, body: { spec: { gpu: "l4:1" }, policy: { ttl: "1h" } }, headers });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

/** A quote as made before quotes moved to the org's object: answered by the API, and written to D1 under an id of its own. */
async function legacyQuote(headers: Record<string, string> = {}) {
  const answered = await quote(headers);
  const q = { ...answered, id: newId("qt", Date.parse(answered.created_at)) };
  await env.DB.prepare("INSERT INTO quotes (id, org_id, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
    .bind(q.id, org.id, JSON.stringify(q), Date.parse(q.created_at), Date.parse(q.expires_at))
    .run();
  return q;
}

const quoteRow = (id: string) => env.DB.prepare("SELECT id, kept FROM quotes WHERE id = ?").bind(id).first<{ id: string; kept: number }>();
const idempotencyRows = (key: string) =>
  env.DB.prepare("SELECT COUNT(*) AS n FROM idempotency WHERE org_id = ? AND key = ?").bind(org.id, key).first<{ n: number }>().then((r) => r?.n ?? 0);

/** Rows as old as `age` would make them, written as they would have been then. */
async function insertOldQuotes(n: number, expiredAgo: number): Promise<string[]> {
  const ids: string[] = [];
  const expires = Date.now() - expiredAgo;
  for (let i = 0; i < n; i++) {
    const id = `qt_old${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    await env.DB.prepare("INSERT INTO quotes (id, org_id, body, created_at, expires_at) VALUES (?, ?, '{}', ?, ?)")
      .bind(id, org.id, expires - 5 * 60_000, expires)
      .run();
    ids.push(id);
  }
  return ids;
}

describe("retention", () => {
  it("deletes expired quotes no lease refers to and idempotency records after 24 h; keeps what a lease refers to", async () => {
    const unused = await legacyQuote({ "idempotency-key": `ret-${crypto.randomUUID()}` });
    const leased = await legacyQuote();
    const lease = await createLease(writeKey, { kind: "scratch", quote_id: leased.id });
    expect(lease.quote_id).toBe(leased.id);
    const idemKey = `ret-lease-${crypto.randomUUID()}`;
    const withKey = await createLease(writeKey, { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: "1h" } }, { "idempotency-key": idemKey });
    expect(await idempotencyRows(idemKey)).toBe(1);

    const db = database(env.DB);
    // An hour after expiry: nothing is old enough.
    const early = await runRetention(db, Date.parse(unused.expires_at) + HOUR);
    expect(await quoteRow(unused.id)).not.toBeNull();
    expect(await idempotencyRows(idemKey)).toBe(1);
    expect(early.idempotency_deleted).toBe(0);

    // A day and a little more later: the unused quote and the idempotency record are gone, the
    // quote the lease was made from stays, marked kept, and answers GET as before.
    const later = Math.max(Date.parse(leased.expires_at) + QUOTE_RETENTION_MS, Date.now() + IDEMPOTENCY_WINDOW_MS) + 60_000;
    for (let i = 0; i < 20; i++) {
      const report = await runRetention(db, later);
      if (report.quotes_deleted === 0 && report.quotes_kept === 0 && report.idempotency_deleted === 0) break;
    }
    expect(await quoteRow(unused.id)).toBeNull();
    expect(await quoteRow(leased.id)).toEqual({ id: leased.id, kept: 1 });
    expect(await idempotencyRows(idemKey)).toBe(0);
    const got = await call("GET", `/v1/quotes/${leased.id}`, { key: writeKey });
    expect(got.status).toBe(200);
    expect((await json(got)).id).toBe(leased.id);

    for (const id of [lease.id, withKey.id]) {
      await call("POST", `/v1/leases/${id}/end`, { key: writeKey, body: {} });
      await waitForState(writeKey, id, "released", 30_000);
    }
    // A released lease still refers to its quote.
    await runRetention(db, later);
    expect(await quoteRow(leased.id)).not.toBeNull();
  });

  it("works in bounded batches: at most the batch size per run, the oldest first", async () => {
    const db = database(env.DB);
    const old = await insertOldQuotes(5, QUOTE_RETENTION_MS + 2 * HOUR);
    const before = (await env.DB.prepare("SELECT COUNT(*) AS n FROM quotes WHERE expires_at < ? AND kept = 0").bind(Date.now() - QUOTE_RETENTION_MS).first<{ n: number }>())!.n;
    const first = await runRetention(db, Date.now(), 2);
    expect(first.quotes_deleted + first.quotes_kept).toBeLessThanOrEqual(2);
    const after = (await env.DB.prepare("SELECT COUNT(*) AS n FROM quotes WHERE expires_at < ? AND kept = 0").bind(Date.now() - QUOTE_RETENTION_MS).first<{ n: number }>())!.n;
    expect(before - after).toBe(2);
    while ((await runRetention(db, Date.now(), 2)).quotes_deleted > 0);
    for (const id of old) expect(await quoteRow(id)).toBeNull();
  });

  it("the statements read through their indexes, not the whole table", async () => {
    const plan = async (q: string) =>
      JSON.stringify((await env.DB.prepare(`EXPLAIN QUERY PLAN ${q}`).bind(0).all()).results.map((r: any) => r.detail));
    const quotes = await plan("SELECT id FROM quotes WHERE kept = 0 AND expires_at < ? ORDER BY expires_at LIMIT 500");
    expect(quotes).toContain("quotes_expiry");
    expect(quotes).not.toMatch(/SCAN quotes|TEMP B-TREE/);
    const refs = await plan("SELECT 1 FROM leases WHERE leases.quote_id = ?");
    expect(refs).toContain("leases_quote");
    const idem = await plan("SELECT rowid FROM idempotency WHERE created_at < ? ORDER BY created_at LIMIT 500");
    expect(idem).toContain("idempotency_age");
    const ingress = await plan("SELECT rowid FROM ingress_events WHERE received_at < ? ORDER BY received_at LIMIT 500");
    expect(ingress).toContain("ingress_events_age");
    // Ingress finds the lease of a provider's machine through its own index.
    const machine = JSON.stringify(
      (await env.DB.prepare("EXPLAIN QUERY PLAN SELECT id FROM leases WHERE provider = ? AND machine_id = ? AND state != 'released' LIMIT 10").bind("sim", "m").all()).results.map((r: any) => r.detail),
    );
    expect(machine).toContain("leases_machine");
  });

  it("deletes provider webhook event ids after their 24 h window, and only those", async () => {
    const now = Date.now();
    const insert = (id: string, at: number) => env.DB.prepare("INSERT INTO ingress_events (account, provider, event_id, received_at) VALUES ('', 'sim', ?, ?)").bind(id, at).run();
    await insert("ret-old", now - INGRESS_DEDUP_WINDOW_MS - 1);
    await insert("ret-edge", now - INGRESS_DEDUP_WINDOW_MS);
    await insert("ret-new", now - HOUR);
    while ((await runRetention(database(env.DB), now)).ingress_events_deleted > 0);
    const left = await env.DB.prepare("SELECT event_id FROM ingress_events WHERE event_id LIKE 'ret-%' ORDER BY event_id").all();
    expect(left.results.map((r: any) => r.event_id)).toEqual(["ret-edge", "ret-new"]);
  });

  it("the cron trigger runs it", async () => {
    const [id] = await insertOldQuotes(1, QUOTE_RETENTION_MS + HOUR);
    await env.DB.prepare("INSERT INTO idempotency (org_id, route, key, body_hash, status, response, created_at) VALUES (?, 'POST /v1/quotes', 'ret-cron', 'x', 201, '{}', ?)")
      .bind(org.id, Date.now() - IDEMPOTENCY_WINDOW_MS - HOUR)
      .run();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
    expect(await quoteRow(id!)).toBeNull();
    expect(await idempotencyRows("ret-cron")).toBe(0);
  });
});
