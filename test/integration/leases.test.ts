import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createOrg, expectError, json, type TestOrg } from "./helpers";
import { createLease, leaseSuite, events, machinesOf, waitFor, waitForState } from "./lease-helpers";

let org: TestOrg;
let key: string;

leaseSuite((o, k) => {
  org = o;
  key = k;
});

const SPEC = { gpu: "l40s:1" };

describe("POST /v1/leases", () => {
  it("answers 202, provisions, and becomes ready; every transition is an event", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: SPEC });
    expect(lease.id).toMatch(/^ls_/);
    expect(["pending", "provisioning", "booting"]).toContain(lease.state);
    expect(lease.policy).toMatchObject({ ttl: "4h", max_lifetime: "1d" });
    const ready = await waitForState(key, lease.id, "ready");
    expect(ready.machine.status).toBe("running");
    expect(ready.machine.label).toBe(`lessor-dev-${lease.id}-a1`);
    // A scratch session has no idle timeout by default: its ttl bounds it.
    expect(lease.policy.idle_timeout).toBeNull();
    expect(ready.guard).toMatchObject({ action: "release", reason: "ttl_expired", due: false, agent_silent_since: null });
    const types = (await events(key, lease.id)).map((e) => e.type);
    expect(types).toEqual(["created", "provisioning", "machine_created", "ready"]);
    // The D1 index matches the object.
    const row = await env.DB.prepare("SELECT state, machine_id, org_id FROM leases WHERE id = ?").bind(lease.id).first<any>();
    expect(row).toMatchObject({ state: "ready", machine_id: ready.machine.id, org_id: org.id });
  });

  it("admission reserves the quote's ceiling, what replacing failed hosts may add included", async () => {
    // No ttl: max_lifetime ends it, and each of two failed boots (10 minutes and one to destroy) is extra.
    const quote = await json(await call("POST", "/v1/quotes", { key, body: { spec: SPEC, policy: { ttl: null, max_lifetime: "2h" } } }));
    expect(quote.ceiling_basis).toBe("max_lifetime");
    expect(quote.ceiling_parts.retries_usd).toBeCloseTo((2 * 11 * quote.hourly_usd) / 60, 4);
    const lease = await createLease(key, { kind: "scratch", quote_id: quote.id });
    const row = await env.DB.prepare("SELECT SUM(ceiling_micro_usd) AS total FROM budget_reservations WHERE lease_id = ?").bind(lease.id).first<{ total: number }>();
    expect(row!.total / 1e6).toBeCloseTo(quote.ceiling_usd, 3);
    expect(row!.total / 1e6).toBeGreaterThan(quote.ceiling_parts.compute_usd + quote.ceiling_parts.stopped_disk_usd + quote.ceiling_parts.retries_usd + quote.ceiling_parts.drift_usd - 0.001);
    await waitForState(key, lease.id, "ready");
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key })).status).toBeLessThan(300);
  });

  it("leases a quote's offer; an expired quote is 409 quote_expired", async () => {
    const quote = await json(await call("POST", "/v1/quotes", { key, body: { spec: SPEC, policy: { ttl: "1h" } } }));
    const lease = await createLease(key, { kind: "scratch", quote_id: quote.id });
    expect(lease.offer.id).toBe(quote.offer.id);
    expect(lease.policy.ttl).toBe("1h");
    const body = JSON.stringify({ ...quote, id: "qt_expired0000000000000000000", expires_at: new Date(Date.now() - 1000).toISOString() });
    await env.DB.prepare("INSERT INTO quotes (id, org_id, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
      .bind("qt_expired0000000000000000000", org.id, body, Date.now() - 600_000, Date.now() - 1000)
      .run();
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", quote_id: "qt_expired0000000000000000000" } }), 409, "quote_expired");
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "scratch", quote_id: "qt_nope" } }), 404, "not_found");
  });

  it("refuses a lease without exactly one of spec and quote_id, and bad policy", async () => {
    for (const body of [{ kind: "scratch" }, { kind: "scratch", spec: SPEC, quote_id: "qt_x" }]) {
      const error = await expectError(await call("POST", "/v1/leases", { key, body }), 400, "invalid_request");
      expect(JSON.stringify(error.details.issues)).toContain("exactly one of `spec` and `quote_id`");
    }
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "pet", spec: SPEC } }), 400, "invalid_request");
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "job", spec: SPEC, policy: { ttl: "soon" } } }), 400, "invalid_duration");
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "job", cmd: "hang", spec: { gpu: "b200:8", max_hourly_usd: 1 } } }), 409, "no_capacity");
  });

  it("warns about an image that is not pinned by digest", async () => {
    const lease = await createLease(key, { kind: "job", cmd: "hang", spec: SPEC, image: "vllm/vllm-openai:latest" });
    expect(lease.warnings).toEqual([{ code: "mutable_image_tag", field: "image", message: expect.stringContaining("mutable tag") }]);
    const pinned = await createLease(key, { kind: "job", cmd: "hang", spec: SPEC, image: `vllm/vllm-openai@sha256:${"a".repeat(64)}` });
    expect(pinned.warnings).toEqual([]);
  });
});

describe("guarantee 10: Idempotency-Key", () => {
  it("replays the first answer for the same key and body, status included", async () => {
    const headers = { "idempotency-key": `k-${crypto.randomUUID()}` };
    const first = await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC }, headers });
    expect(first.status).toBe(202);
    const a = await json(first);
    const second = await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC }, headers });
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await json(second)).toEqual(a);
  });

  it("refuses the same key with another body: 422 idempotency_mismatch", async () => {
    const headers = { "idempotency-key": `k-${crypto.randomUUID()}` };
    expect((await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC }, headers })).status).toBe(202);
    await expectError(await call("POST", "/v1/leases", { key, body: { kind: "job", spec: SPEC }, headers }), 422, "idempotency_mismatch");
  });

  it("two concurrent requests with one key create one lease", async () => {
    const headers = { "idempotency-key": `k-${crypto.randomUUID()}` };
    const before = (await env.DB.prepare("SELECT COUNT(*) AS n FROM leases WHERE org_id = ?").bind(org.id).first<any>()).n;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC }, headers })),
    );
    const bodies = await Promise.all(answers.map((r) => json(r)));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    const after = (await env.DB.prepare("SELECT COUNT(*) AS n FROM leases WHERE org_id = ?").bind(org.id).first<any>()).n;
    expect(after - before).toBe(1);
  });

  it("is scoped to the org: another org's identical key creates its own lease", async () => {
    const other = await createOrg();
    const headers = { "idempotency-key": "shared-key-1" };
    const a = await json(await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: SPEC }, headers }));
    const b = await json(await call("POST", "/v1/leases", { key: other.adminKey, body: { kind: "scratch", spec: SPEC }, headers }));
    expect(a.id).not.toBe(b.id);
  });
});

describe("lease actions", () => {
  it("stop, start, extend, lock, unlock, heartbeat, end; end is idempotent", async () => {
    const lease = await createLease(key, { kind: "deployment", spec: SPEC, policy: { ttl: "2h" } });
    await waitForState(key, lease.id, "ready");
    const act = (action: string, body?: unknown) => call("POST", `/v1/leases/${lease.id}/${action}`, { key, body: body ?? {} });

    const extended = await json(await act("extend", { by: "30m" }));
    expect(Date.parse(extended.ttl_expires_at) - Date.parse(lease.ttl_expires_at)).toBe(30 * 60_000);

    const locked = await json(await act("lock", { for: "1h" }));
    expect(Date.parse(locked.lock_until)).toBeGreaterThan(Date.now() + 59 * 60_000);
    const capped = await json(await act("lock", { for: "30d" }));
    // A lock never outlives the hard caps (the ttl here).
    expect(capped.lock_until).toBe(capped.ttl_expires_at);
    expect((await json(await act("unlock"))).lock_until).toBeNull();

    const beat = await json(await act("heartbeat"));
    expect(Date.parse(beat.last_activity_at)).toBeGreaterThan(Date.now() - 5_000);

    expect((await act("stop")).status).toBe(200);
    await waitForState(key, lease.id, "stopped");
    const [m] = await machinesOf(lease.id);
    expect(m!.status).toBe("EXITED");

    const e = await expectError(await act("stop"), 409, "invalid_state");
    expect(e.details.state).toBe("stopped");
    await expectError(await act("heartbeat"), 409, "invalid_state");

    expect((await act("start")).status).toBe(200);
    const restarted = await waitForState(key, lease.id, "ready");
    expect(Date.parse(restarted.session_started_at)).toBeGreaterThan(Date.parse(lease.created_at));

    const ended = await act("end");
    expect(ended.status).toBe(200);
    const released = await waitForState(key, lease.id, "released");
    expect(released.release_reason).toBe("user_end");
    const again = await act("end");
    expect(again.status).toBe(200);
    expect((await json(again)).state).toBe("released");
    await expectError(await act("start"), 409, "invalid_state");
    const [after] = await machinesOf(lease.id);
    expect(after!.status).toBe("TERMINATED");
  });

  it("answers 404 for an unknown lease and for a malformed id, leaving no object storage behind", async () => {
    await expectError(await call("GET", "/v1/leases/ls_00000000000000000000000000", { key }), 404, "not_found");
    await expectError(await call("POST", "/v1/leases/ls_00000000000000000000000000/heartbeat", { key, body: {} }), 404, "not_found");
    const tables = await runInDurableObject(env.LEASE.get(env.LEASE.idFromName("ls_00000000000000000000000000")), (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
    );
    expect(tables).toEqual([]);
    await expectError(await call("POST", "/v1/leases/nope/end", { key, body: {} }), 404, "not_found");
  });

  it("lists from the index with filters and cursor pagination", async () => {
    const mine = await createOrg();
    const ids: string[] = [];
    for (const kind of ["scratch", "job", "scratch"]) ids.push((await createLease(mine.adminKey, { kind, spec: SPEC, ...(kind === "job" ? { cmd: "hang" } : {}) })).id);
    await waitFor("index rows", async () => {
      const res = await json(await call("GET", "/v1/leases?limit=200", { key: mine.adminKey }));
      return res.data.length === 3 ? res : null;
    });
    const page1 = await json(await call("GET", "/v1/leases?limit=2", { key: mine.adminKey }));
    expect(page1.data.map((l: any) => l.id)).toEqual([ids[2], ids[1]]);
    const page2 = await json(await call("GET", `/v1/leases?limit=2&cursor=${page1.next_cursor}`, { key: mine.adminKey }));
    expect(page2.data.map((l: any) => l.id)).toEqual([ids[0]]);
    expect(page2.next_cursor).toBeNull();
    const jobs = await json(await call("GET", "/v1/leases?kind=job", { key: mine.adminKey }));
    expect(jobs.data.map((l: any) => l.id)).toEqual([ids[1]]);
    await expectError(await call("GET", "/v1/leases?state=sleeping", { key: mine.adminKey }), 400);
  });
});
