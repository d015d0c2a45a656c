/**
 * Outbound webhooks (Standard Webhooks 1.0): endpoints, the SSRF guard, signed deliveries, retries,
 * disabling (docs/events.md), and what keeps them from amplifying (docs/security.md).
 */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_WEBHOOK_ENDPOINTS } from "../../src/auth/limits";
import { orgEventsStub } from "../../src/events/forward";
import type { LeaseEvent } from "../../src/lease/object";
import { DEFAULT_DELIVERIES_PER_MINUTE, DEFAULT_FANOUT } from "../../src/webhooks/budget";
import { REFILL_RUN } from "../../src/webhooks/deliveries";
import { FAILING_DISABLE_MS, MAX_CONSECUTIVE_FAILURES, RETRY_SCHEDULE_MS } from "../../src/webhooks/schedule";
import { ResponseChecker } from "../support/response-check";
import { dnsDown, setDns } from "./dns-stub";
import { BASE, call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, waitFor } from "./lease-helpers";
import { RECEIVER, Receiver, verify } from "./webhook-receiver";

let org: TestOrg;
let admin: string;
let readKey: string;
const receiver = new Receiver();
const LEASE = "ls_0000000000000000000000test";
let seq = 0;

beforeAll(() => {
  receiver.install();
});
afterAll(() => receiver.uninstall());
const RECEIVER_HOST = new URL(RECEIVER).hostname;
afterEach(() => {
  setDns(RECEIVER_HOST, null);
  dnsDown(false);
});

beforeEach(async () => {
  org = await createOrg();
  admin = org.adminKey;
  readKey = (await createKey(org, "read")).secret;
  receiver.received = [];
  receiver.answers = [];
  receiver.fallback = 200;
});

async function addWebhook(path: string, events: string[] = ["*"]) {
  const res = await call("POST", "/v1/webhooks", { key: admin, body: { url: `${RECEIVER}${path}`, events } });
  const body = await json(res);
  if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Appends an event to the org's log as a lease's object would. */
async function emit(type = "ready"): Promise<LeaseEvent> {
  // The detail its type carries (src/lease/event-schema.ts): a release names what it destroyed.
  const detail = type === "released" ? { destroyed: [] } : {};
  const e: LeaseEvent = { seq: ++seq, at: new Date().toISOString(), type, from: "booting", to: "ready", reason: null, detail };
  await orgEventsStub(env, org.id).append(org.id, LEASE, [e]);
  return e;
}

const deliveries = async (id: string) => (await json(await call("GET", `/v1/webhooks/${id}/deliveries`, { key: readKey }))).data;
/** Until the org's object has no delivery pending: whatever the queue had for the org is settled, and nothing more will be sent. */
const quiet = () =>
  waitFor("no delivery pending", async () =>
    runInDurableObject(orgEventsStub(env, org.id), (_o, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE status = 'pending'`).one().n === 0),
  );
const arrivals = (path: string, n: number) => waitFor(`${n} deliveries at ${path}`, async () => receiver.at(path).length >= n && receiver.at(path));

describe("endpoints", () => {
  it("creates, reads, lists, changes and removes; the secret is shown once", async () => {
    const created = await addWebhook("/crud", ["released", "ready"]);
    expect(created.id).toMatch(/^wh_[0-9a-z]{26}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created).toMatchObject({ url: `${RECEIVER}/crud`, events: ["released", "ready"], enabled: true, disabled_reason: null, failing_since: null });
    const got = await json(await call("GET", `/v1/webhooks/${created.id}`, { key: readKey }));
    expect(got.secret).toBeUndefined();
    const { secret: _s, ...shown } = created;
    expect(got).toEqual(shown);
    const list = await json(await call("GET", "/v1/webhooks", { key: readKey }));
    expect(list.data).toEqual([shown]);
    expect(JSON.stringify(list)).not.toContain(created.secret);
    const row = await env.DB.prepare("SELECT secret_ciphertext FROM webhook_endpoints WHERE id = ?").bind(created.id).first<any>();
    expect(row.secret_ciphertext).not.toContain(created.secret.slice(6));

    const patched = await json(await call("PATCH", `/v1/webhooks/${created.id}`, { key: admin, body: { events: ["*", "ready"], url: `${RECEIVER}/moved` } }));
    expect(patched).toMatchObject({ url: `${RECEIVER}/moved`, events: ["*"] });
    await expectError(await call("POST", "/v1/webhooks", { key: readKey, body: { url: `${RECEIVER}/x`, events: ["*"] } }), 403, "insufficient_scope");
    await expectError(await call("PATCH", `/v1/webhooks/${created.id}`, { key: readKey, body: { events: ["ready"] } }), 403, "insufficient_scope");
    const other = await createOrg();
    await expectError(await call("GET", `/v1/webhooks/${created.id}`, { key: other.adminKey }), 404, "not_found");
    await expectError(await call("DELETE", `/v1/webhooks/${created.id}`, { key: other.adminKey }), 404, "not_found");
    expect((await call("DELETE", `/v1/webhooks/${created.id}`, { key: admin })).status).toBe(200);
    await expectError(await call("GET", `/v1/webhooks/${created.id}`, { key: readKey }), 404, "not_found");
  });

  it("refuses targets that are not https on a public address", async () => {
    const refused = [
      "http://hooks.example.com/",
      "ftp://hooks.example.com/",
      "https://user:pw@hooks.example.com/",
      "https://127.0.0.1/",
      "https://127.255.255.254/",
      "https://0x7f.1/",
      "https://2130706433/",
      "https://localhost/",
      "https://app.localhost/",
      "https://10.1.2.3/",
      "https://172.16.0.1/",
      "https://172.31.255.255/",
      "https://192.168.0.10/",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://[::1]/",
      "https://[::]/",
      "https://[fe80::1]/",
      "https://[fd12:3456::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[::ffff:10.0.0.1]/",
      // Issue 28, item 6: the forms today's guard let through.
      "https://[::127.0.0.1]/",
      "https://[2002:7f00:1::]/",
      "https://[2002:a9fe:a9fe::]/",
      "https://[64:ff9b:1::1]/",
      "https://[fec0::1]/",
      "https://metadata.google.internal/computeMetadata/v1/",
      "https://printer.local/",
      "https://intranet/",
      "https://hooks.example.com:8443/",
      "https://hooks.example.com:80/",
      "https://8.8.8.8:22/",
      "not a url",
    ];
    for (const url of refused) {
      const err = await expectError(await call("POST", "/v1/webhooks", { key: admin, body: { url, events: ["*"] } }), 400, "invalid_webhook_url");
      expect(err.details.field, url).toBe("url");
    }
    // The other side of each boundary is public.
    for (const url of ["https://172.15.255.255/", "https://172.32.0.1/", "https://100.63.255.255/", "https://100.128.0.1/", "https://169.253.0.1/", "https://[2606:4700::1111]/"]) {
      expect((await call("POST", "/v1/webhooks", { key: admin, body: { url, events: ["*"] } })).status, url).toBe(201);
    }
    for (const events of [[], ["Ready"], ["ready", "ready"], ["a b"], "*"]) {
      await expectError(await call("POST", "/v1/webhooks", { key: admin, body: { url: `${RECEIVER}/`, events } }), 400, "invalid_request");
    }
    const ok = await addWebhook("/ok");
    await expectError(await call("PATCH", `/v1/webhooks/${ok.id}`, { key: admin, body: { url: "https://10.0.0.1/" } }), 400, "invalid_webhook_url");
    await expectError(await call("PATCH", `/v1/webhooks/${ok.id}`, { key: admin, body: { secret: "whsec_x" } }), 400, "invalid_request");
  });

  it(`holds at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per org`, async () => {
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) await addWebhook(`/n${i}`);
    const err = await expectError(await call("POST", "/v1/webhooks", { key: admin, body: { url: `${RECEIVER}/one-more`, events: ["*"] } }), 409, "limit_reached");
    expect(err.details).toEqual({ limit: "webhook_endpoints", max: MAX_WEBHOOK_ENDPOINTS });
    const page = await json(await call("GET", "/v1/webhooks?limit=15", { key: readKey }));
    expect(page.data).toHaveLength(15);
    const rest = await json(await call("GET", `/v1/webhooks?cursor=${page.next_cursor}`, { key: readKey }));
    expect(rest.data).toHaveLength(5);
    expect(rest.next_cursor).toBeNull();
  });
});

describe("deliveries", () => {
  it("signs every delivery so that the standardwebhooks package verifies it, and sends only the types asked for", async () => {
    const all = await addWebhook("/all");
    const some = await addWebhook("/some", ["released"]);
    const e = await emit("ready");
    await emit("released");
    const got = await arrivals("/all", 2);
    const first = got.find((r) => r.json.type === "ready")!;
    const verified = verify(all.secret, first) as any;
    expect(verified).toEqual({ type: "ready", timestamp: e.at, data: { id: expect.any(Number), lease_id: LEASE, ...e } });
    expect(first.headers["webhook-id"]).toBe(`msg_${LEASE}_${e.seq}`);
    expect(Math.abs(Number(first.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    expect(first.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(first.headers["content-type"]).toBe("application/json");
    // Another secret does not verify it, nor does a changed body.
    expect(() => verify(some.secret, first)).toThrow();
    expect(() => verify(all.secret, { ...first, body: first.body.replace("ready", "reade") })).toThrow();
    const narrow = await arrivals("/some", 1);
    expect(narrow.map((r) => r.json.type)).toEqual(["released"]);
    verify(some.secret, narrow[0]!);
    const listed = await deliveries(all.id);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ status: "succeeded", attempts: 1, response_status: 200, next_attempt_at: null, error: null });
    expect(listed[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(listed)).not.toContain(all.secret);
  });

  it("an event after an endpoint's change follows it, though the org's object keeps the endpoints in memory", async () => {
    const hook = await addWebhook("/changing", ["ready"]);
    await emit("ready"); // the object now holds the org's endpoints
    await arrivals("/changing", 1);
    await call("PATCH", `/v1/webhooks/${hook.id}`, { key: admin, body: { events: ["released"] } });
    const late = await addWebhook("/late", ["ready"]);
    await emit("ready");
    await emit("released");
    await arrivals("/late", 1);
    await arrivals("/changing", 2);
    await quiet();
    expect(receiver.at("/changing").map((r) => r.json.type)).toEqual(["ready", "released"]);
    expect(receiver.at("/late").map((r) => r.json.type)).toEqual(["ready"]);
    verify(late.secret, receiver.at("/late")[0]!);
    // Deleted, it takes no event after its answer; its deliveries before it are kept.
    expect((await call("DELETE", `/v1/webhooks/${late.id}`, { key: admin })).status).toBe(200);
    await emit("ready");
    await emit("released");
    await arrivals("/changing", 3);
    await quiet();
    expect(receiver.at("/late")).toHaveLength(1);
    expect(await runInDurableObject(orgEventsStub(env, org.id), (_o, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE endpoint_id = ?`, late.id).one().n)).toBe(1);
  });

  it("retries a failure on the schedule with the same webhook-id, and a manual retry sends again", async () => {
    const hook = await addWebhook("/flaky");
    receiver.answers = [500];
    const before = Date.now();
    await emit();
    await arrivals("/flaky", 1);
    const [pending] = await waitFor("the failure recorded", async () => {
      const d = await deliveries(hook.id);
      return d[0]?.attempts === 1 && d;
    });
    expect(pending).toMatchObject({ status: "pending", attempts: 1, response_status: 500 });
    const wait = Date.parse(pending.next_attempt_at) - Date.parse(pending.attempted_at);
    expect(wait).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[1] * 0.9);
    expect(wait).toBeLessThanOrEqual(RETRY_SCHEDULE_MS[1] * 1.1);
    const endpoint = await json(await call("GET", `/v1/webhooks/${hook.id}`, { key: readKey }));
    expect(Date.parse(endpoint.failing_since)).toBeGreaterThanOrEqual(before - 1000);
    // The object's alarm sends it when due: no request waits for it.
    const got = await waitFor("the retry", async () => receiver.at("/flaky").length >= 2 && receiver.at("/flaky"), 15_000);
    expect(got[1]!.headers["webhook-id"]).toBe(got[0]!.headers["webhook-id"]);
    verify(hook.secret, got[1]!);
    const [done] = await waitFor("success recorded", async () => {
      const d = await deliveries(hook.id);
      return d[0]?.status === "succeeded" && d;
    });
    expect(done.attempts).toBe(2);
    expect((await json(await call("GET", `/v1/webhooks/${hook.id}`, { key: readKey }))).failing_since).toBeNull();

    const again = await call("POST", `/v1/webhooks/${hook.id}/deliveries/${done.id}/retry`, { key: admin });
    expect(again.status).toBe(202);
    expect((await json(again)).status).toBe("pending");
    const third = await arrivals("/flaky", 3);
    expect(third[2]!.headers["webhook-id"]).toBe(got[0]!.headers["webhook-id"]);
    await expectError(await call("POST", `/v1/webhooks/${hook.id}/deliveries/dlv_00000000000000000000000000/retry`, { key: admin }), 404, "not_found");
    await expectError(await call("POST", `/v1/webhooks/${hook.id}/deliveries/${done.id}/retry`, { key: readKey }), 403, "insufficient_scope");
  });

  it("410 disables the endpoint at once, with a webhook_disabled event, and nothing is sent to it after the 410", async () => {
    const gone = await addWebhook("/gone");
    const watcher = await addWebhook("/watch", ["webhook_disabled"]);
    receiver.answers = [410];
    await emit();
    await emit();
    await waitFor("the endpoint disabled", async () => !(await json(await call("GET", `/v1/webhooks/${gone.id}`, { key: readKey }))).enabled);
    const ep = await json(await call("GET", `/v1/webhooks/${gone.id}`, { key: readKey }));
    expect(ep).toMatchObject({ enabled: false, disabled_reason: "gone" });
    const events = (await json(await call("GET", "/v1/events", { key: readKey }))).data;
    const disabled = events.filter((e: any) => e.type === "webhook_disabled");
    expect(disabled).toHaveLength(1);
    expect(disabled[0]).toMatchObject({ lease_id: null, reason: "gone", detail: { webhook_id: gone.id, reason: "gone" } });
    expect(JSON.stringify(events)).not.toContain(gone.secret);
    // Another endpoint that asked for it is told.
    const told = await arrivals("/watch", 1);
    expect(verify(watcher.secret, told[0]!)).toMatchObject({ type: "webhook_disabled", data: { detail: { webhook_id: gone.id } } });
    await quiet();
    // The two deliveries may have gone out side by side in one batch, before the 410 was known (no
    // order is kept between deliveries: docs/events.md "Order"); a later one never goes.
    const before = receiver.at("/gone").length;
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThanOrEqual(2);
    await emit();
    await quiet();
    expect(receiver.at("/gone")).toHaveLength(before);
    const list = await deliveries(gone.id);
    expect(list).toHaveLength(2);
    expect(list.filter((d: any) => d.response_status === 410)).toHaveLength(1);
    expect(list.every((d: any) => d.status !== "pending")).toBe(true);
    await expectError(await call("POST", `/v1/webhooks/${gone.id}/deliveries/${list[0].id}/retry`, { key: admin }), 409, "webhook_disabled");
    // Enabled again, it takes new deliveries.
    expect((await json(await call("PATCH", `/v1/webhooks/${gone.id}`, { key: admin, body: { enabled: true } }))).enabled).toBe(true);
    await emit();
    await arrivals("/gone", before + 1);
  });

  it("disables an endpoint after five days of failures, not before", async () => {
    const young = await addWebhook("/young");
    const old = await addWebhook("/old");
    receiver.fallback = 503;
    const now = Date.now();
    await env.DB.prepare("UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?").bind(now - FAILING_DISABLE_MS + 60_000, young.id).run();
    await env.DB.prepare("UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?").bind(now - FAILING_DISABLE_MS - 1, old.id).run();
    await emit();
    await waitFor("both attempted", async () => receiver.at("/young").length >= 1 && receiver.at("/old").length >= 1);
    await waitFor("old disabled", async () => (await json(await call("GET", `/v1/webhooks/${old.id}`, { key: readKey }))).disabled_reason === "failing");
    const y = await json(await call("GET", `/v1/webhooks/${young.id}`, { key: readKey }));
    expect(y.enabled).toBe(true);
    const events = (await json(await call("GET", "/v1/events", { key: readKey }))).data.filter((e: any) => e.type === "webhook_disabled");
    expect(events.map((e: any) => e.detail)).toEqual([{ webhook_id: old.id, url: `${RECEIVER}/old`, reason: "failing", consecutive_failures: 1 }]);
  });

  it("signs with both secrets for 24 h after a rotation, then with the new one only", async () => {
    const hook = await addWebhook("/rotate");
    const rotated = await json(await call("POST", `/v1/webhooks/${hook.id}/rotate-secret`, { key: admin }));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    const until = Date.parse(rotated.previous_secret_until) - Date.now();
    expect(until).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(until).toBeLessThanOrEqual(24 * 3600_000);
    await emit();
    const [during] = await arrivals("/rotate", 1);
    expect(during!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    verify(hook.secret, during!);
    verify(rotated.secret, during!);
    // The overlap is over.
    await env.DB.prepare("UPDATE webhook_endpoints SET previous_secret_until = ? WHERE id = ?").bind(Date.now() - 1, hook.id).run();
    await emit();
    const after = (await arrivals("/rotate", 2))[1]!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    verify(rotated.secret, after);
    expect(() => verify(hook.secret, after)).toThrow();
    expect((await json(await call("GET", `/v1/webhooks/${hook.id}`, { key: readKey }))).previous_secret_until).toBeNull();
    await expectError(await call("POST", `/v1/webhooks/${hook.id}/rotate-secret`, { key: readKey }), 403, "insufficient_scope");
  });

  it("of two rotations at once, the later one keeps the earlier one's secret signing", async () => {
    const hook = await addWebhook("/rotate-twice");
    const [a, b] = await Promise.all([0, 1].map(async () => json(await call("POST", `/v1/webhooks/${hook.id}/rotate-secret`, { key: admin }))));
    expect(a.secret).not.toBe(b.secret);
    await emit();
    const [got] = await arrivals("/rotate-twice", 1);
    // Both secrets shown sign; the one no answer shows any more does not.
    verify(a.secret, got!);
    verify(b.secret, got!);
    expect(() => verify(hook.secret, got!)).toThrow();
    await expectError(await call("POST", "/v1/webhooks/wh_00000000000000000000000000/rotate-secret", { key: admin }), 404, "not_found");
  });

  it("delivers a real lease's events", async () => {
    await refreshCatalog();
    await fastSim();
    const hook = await addWebhook("/lease", ["ready"]);
    const writeKey = (await createKey(org, "write")).secret;
    const lease = await createLease(writeKey, { kind: "scratch", spec: { gpu: "l40s:1" } });
    const [got] = await arrivals("/lease", 1);
    expect(verify(hook.secret, got!)).toMatchObject({ type: "ready", data: { lease_id: lease.id, type: "ready" } });
    expect(got!.headers["webhook-id"]).toBe(`msg_${lease.id}_4`);
    await call("POST", `/v1/leases/${lease.id}/end`, { key: writeKey });
  });
});

describe("where a name points (issue 28, item 6)", () => {
  it("refuses an endpoint whose name points at a private address, and takes one the resolver cannot say anything about", async () => {
    setDns(RECEIVER_HOST, ["93.184.215.14", "127.0.0.1"]);
    const err = await expectError(await call("POST", "/v1/webhooks", { key: admin, body: { url: `${RECEIVER}/x`, events: ["*"] } }), 400, "invalid_webhook_url");
    expect(err.details).toEqual({ field: "url", reason: `${RECEIVER_HOST} points at a loopback address (127.0.0.1)` });
    setDns(RECEIVER_HOST, ["fd00::7"]);
    const ok = await json(await call("POST", "/v1/webhooks", { key: admin, body: { url: "https://8.8.8.8/", events: ["*"] } }));
    await expectError(await call("PATCH", `/v1/webhooks/${ok.id}`, { key: admin, body: { url: `${RECEIVER}/y` } }), 400, "invalid_webhook_url");
    setDns(RECEIVER_HOST, null);
    dnsDown(true);
    // Checked again before anything is sent: a resolver outage does not lock an admin out.
    expect((await call("POST", "/v1/webhooks", { key: admin, body: { url: `${RECEIVER}/later`, events: ["*"] } })).status).toBe(201);
  });

  it("checks the name again before every run: one pointed at a private address since is not sent to", async () => {
    const hook = await addWebhook("/moved");
    setDns(RECEIVER_HOST, ["169.254.169.254"]);
    await emit();
    const [d] = await waitFor("the delivery refused", async () => {
      const list = await deliveries(hook.id);
      return list[0]?.status === "failed" && list;
    });
    expect(d.error).toBe(`url refused: ${RECEIVER_HOST} points at a link-local address (169.254.169.254)`);
    expect(receiver.at("/moved")).toHaveLength(0);
  });

  it("sends nothing while the resolver cannot answer, and tries again on the schedule", async () => {
    const hook = await addWebhook("/unsure");
    dnsDown(true);
    await emit();
    const [d] = await waitFor("the attempt recorded", async () => {
      const list = await deliveries(hook.id);
      return list[0]?.attempts === 1 && list;
    });
    expect(d).toMatchObject({ status: "pending", response_status: null, error: `could not check where ${RECEIVER_HOST} points: the resolver answered 503` });
    expect(receiver.at("/unsure")).toHaveLength(0);
    dnsDown(false);
    await arrivals("/unsure", 1);
  });
});

describe("webhooks do not amplify (issue 28, item 5)", () => {
  const budget = (tokens: number) =>
    runInDurableObject(orgEventsStub(env, org.id), async (_object, state) => {
      state.storage.sql.exec(`INSERT INTO meta (key, value) VALUES ('delivery_budget', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, JSON.stringify({ tokens, at: Date.now() }));
    });
  const alarmAt = () => runInDurableObject(orgEventsStub(env, org.id), (_object, state) => state.storage.getAlarm());

  it(`past the org's ${DEFAULT_DELIVERIES_PER_MINUTE} deliveries a minute, deliveries wait for the budget, and none is lost`, async () => {
    const hook = await addWebhook("/budget");
    const before = Date.now();
    await budget(0);
    for (let i = 0; i < 3; i++) await emit();
    // A run's worth has to come back first: 20 attempts at 10 a second.
    const refill = (REFILL_RUN * 60_000) / DEFAULT_DELIVERIES_PER_MINUTE;
    expect(await alarmAt()).toBeGreaterThanOrEqual(before + refill);
    const waiting = await deliveries(hook.id);
    expect(waiting.map((d: any) => [d.status, d.attempts])).toEqual([["pending", 0], ["pending", 0], ["pending", 0]]);
    expect(receiver.at("/budget")).toHaveLength(0);
    // Nothing was dropped: all three come once the budget has.
    await arrivals("/budget", 3);
    const done = await waitFor("all delivered", async () => {
      const list = await deliveries(hook.id);
      return list.every((d: any) => d.status === "succeeded") && list;
    });
    for (const d of done) expect(Date.parse(d.attempted_at)).toBeGreaterThanOrEqual(before + refill);
  });

  it(`an event goes to at most ${DEFAULT_FANOUT} endpoints, the oldest that take it; the others record why, and a retry still sends it`, async () => {
    // The oldest endpoint does not take the event, so it does not count.
    await addWebhook("/other-type", ["released"]);
    const hooks = [];
    for (let i = 0; i < DEFAULT_FANOUT + 2; i++) hooks.push(await addWebhook(`/fan${i}`));
    await emit("ready");
    for (let i = 0; i < DEFAULT_FANOUT; i++) await arrivals(`/fan${i}`, 1);
    await quiet();
    for (const hook of hooks.slice(DEFAULT_FANOUT)) {
      const [d] = await deliveries(hook.id);
      expect(d).toMatchObject({ status: "failed", attempts: 0, next_attempt_at: null, error: `not sent: an event goes to at most ${DEFAULT_FANOUT} endpoints, the oldest that take it, and ${DEFAULT_FANOUT + 2} take this one` });
    }
    expect(receiver.received.map((r) => r.path).sort()).toEqual(hooks.slice(0, DEFAULT_FANOUT).map((_h, i) => `/fan${i}`).sort());
    const skipped = hooks.at(-1)!;
    const [d] = await deliveries(skipped.id);
    expect((await call("POST", `/v1/webhooks/${skipped.id}/deliveries/${d.id}/retry`, { key: admin })).status).toBe(202);
    await arrivals(`/fan${DEFAULT_FANOUT + 1}`, 1);
  });

  it(`disables an endpoint at its ${MAX_CONSECUTIVE_FAILURES}th failure in a row, with an event; the count shows, a delivery or an enable clears it`, async () => {
    const dying = await addWebhook("/dying");
    // Only `ready`: the webhook_disabled event would be its next failure.
    const flaky = await addWebhook("/flaky-count", ["ready"]);
    await addWebhook("/watch-count", ["webhook_disabled"]);
    receiver.fallback = 500;
    const failures = (id: string, n: number) => env.DB.prepare("UPDATE webhook_endpoints SET consecutive_failures = ?, failing_since = ? WHERE id = ?").bind(n, Date.now() - 60_000, id).run();
    await failures(dying.id, MAX_CONSECUTIVE_FAILURES - 1);
    await failures(flaky.id, MAX_CONSECUTIVE_FAILURES - 2);
    await emit("ready");
    await waitFor("dying disabled", async () => (await json(await call("GET", `/v1/webhooks/${dying.id}`, { key: readKey }))).enabled === false);
    const listed = new Map<string, any>((await json(await call("GET", "/v1/webhooks", { key: readKey }))).data.map((w: any) => [w.id, w]));
    expect(listed.get(dying.id)).toMatchObject({ enabled: false, disabled_reason: "failing", consecutive_failures: MAX_CONSECUTIVE_FAILURES });
    await waitFor("flaky counted", async () => (await json(await call("GET", `/v1/webhooks/${flaky.id}`, { key: readKey }))).consecutive_failures === MAX_CONSECUTIVE_FAILURES - 1);
    expect((await json(await call("GET", `/v1/webhooks/${flaky.id}`, { key: readKey }))).enabled).toBe(true);
    const events = (await json(await call("GET", "/v1/events", { key: readKey }))).data.filter((e: any) => e.type === "webhook_disabled");
    expect(events.map((e: any) => e.detail)).toEqual([{ webhook_id: dying.id, url: `${RECEIVER}/dying`, reason: "failing", consecutive_failures: MAX_CONSECUTIVE_FAILURES }]);
    receiver.fallback = 200;
    const told = await arrivals("/watch-count", 1);
    expect(told[0]!.json).toMatchObject({ type: "webhook_disabled", data: { detail: { webhook_id: dying.id, consecutive_failures: MAX_CONSECUTIVE_FAILURES } } });
    // A delivery clears the count.
    const [pending] = await deliveries(flaky.id);
    expect((await call("POST", `/v1/webhooks/${flaky.id}/deliveries/${pending.id}/retry`, { key: admin })).status).toBe(202);
    await waitFor("flaky healthy", async () => {
      const w = await json(await call("GET", `/v1/webhooks/${flaky.id}`, { key: readKey }));
      return w.consecutive_failures === 0 && w.failing_since === null;
    });
    // So does enabling it again.
    const enabled = await json(await call("PATCH", `/v1/webhooks/${dying.id}`, { key: admin, body: { enabled: true } }));
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null, consecutive_failures: 0 });
  });
});

describe("the document", () => {
  it("describes every answer of the event and webhook routes", async () => {
    const checker = new ResponseChecker(await (await SELF.fetch(`${BASE}/v1/openapi.json`)).json());
    const checked = async (method: string, path: string, body?: unknown, status?: number): Promise<any> => {
      const res = await call(method, path, { key: admin, body });
      const answer = await res.json();
      if (status !== undefined) expect(res.status, JSON.stringify(answer)).toBe(status);
      expect(checker.problems(method, path, res.status, answer)).toEqual([]);
      return answer;
    };
    const hook = await checked("POST", "/v1/webhooks", { url: `${RECEIVER}/doc`, events: ["*"] }, 201);
    await checked("GET", "/v1/webhooks", undefined, 200);
    await checked("GET", `/v1/webhooks/${hook.id}`, undefined, 200);
    await checked("PATCH", `/v1/webhooks/${hook.id}`, { events: ["ready"] }, 200);
    await checked("POST", `/v1/webhooks/${hook.id}/rotate-secret`, undefined, 200);
    await emit("ready");
    await arrivals("/doc", 1);
    const page = await checked("GET", `/v1/webhooks/${hook.id}/deliveries`, undefined, 200);
    await checked("POST", `/v1/webhooks/${hook.id}/deliveries/${page.data[0].id}/retry`, undefined, 202);
    await checked("GET", "/v1/events?limit=1", undefined, 200);
    await checked("GET", "/v1/events?after=abc", undefined, 400);
    await checked("POST", "/v1/webhooks", { url: "https://10.0.0.1/", events: ["*"] }, 400);
    await checked("DELETE", `/v1/webhooks/${hook.id}`, undefined, 200);
    await checked("GET", `/v1/webhooks/${hook.id}/deliveries`, undefined, 404);
  });
});
