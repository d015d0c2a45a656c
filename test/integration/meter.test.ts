/**
 * The control plane's own consumption is counted where it happens (src/metering.ts): one lease's
 * life moves every counter the cost bench prices. A counter that stops counting fails here.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db";
import { liveMachinesQuery } from "../../src/lease/reaper";
import { BOOTSTRAP, call, expectError, json, queryPlan, type TestOrg } from "./helpers";
import { orgEventsStub } from "../../src/events/forward";
import type { OrgEventsObject } from "../../src/events/org-object";
import { createLease, getLease, leaseSuite, sim, waitFor, waitForState } from "./lease-helpers";

let key: string;
let org: TestOrg;
leaseSuite((o, k) => {
  org = o;
  key = k;
});

async function agentSnapshot(id: string) {
  return json(await call("GET", `/v1/sim/leases/${id}/agent`, { key: BOOTSTRAP }));
}

async function meter() {
  const res = await call("GET", "/v1/meter", { key: BOOTSTRAP });
  expect(res.status).toBe(200);
  return json(res);
}

describe("GET /v1/meter", () => {
  it("is the operator's: an org key is refused", async () => {
    await expectError(await call("GET", "/v1/meter", { key }), 401, "unauthenticated");
  });

  it("a lease's life, from create to released, moves every counter", async () => {
    const before = await meter();
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] } });
    await waitForState(key, lease.id, "ready");
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
    const after = await meter();
    for (const counter of ["worker_requests", "do_requests", "do_alarms", "do_wall_ms", "d1_queries", "d1_rows_read", "d1_rows_written", "do_rows_read", "do_rows_written"]) {
      expect(after[counter], counter).toBeGreaterThan(before[counter]);
    }
    // Create, read back at least once, destroy, and list by label to confirm: four calls at least.
    expect(after.provider_calls.sim - (before.provider_calls.sim ?? 0)).toBeGreaterThanOrEqual(4);
  });

  it("a heartbeat that changes nothing the index shows writes no D1 rows; a real change still reaches the index", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] } });
    await waitForState(key, lease.id, "ready");
    const beat = () => call("POST", `/v1/leases/${lease.id}/heartbeat`, { key, body: {} });
    // The lease's row of its org's index (src/orgs/lease-index.ts).
    const indexed = () =>
      runInDurableObject(orgEventsStub(env, org.id) as unknown as DurableObjectStub<OrgEventsObject>, (_o, state) =>
        state.storage.sql.exec<{ next_deadline: number | null; body: string }>(`SELECT next_deadline, body FROM leases WHERE id = ?`, lease.id).toArray()[0],
      );
    expect((await beat()).status).toBe(200); // the first one after ready may still catch the index up

    const before = await meter();
    expect((await beat()).status).toBe(200);
    const after = await meter();
    expect(after.d1_rows_written - before.d1_rows_written).toBe(0);
    // The heartbeat itself moved the idle deadline later; the index may keep an earlier one, never a later one.
    const guard = (await getLease(key, lease.id)).guard;
    const row = (await indexed())!;
    expect(row.next_deadline).not.toBeNull();
    expect(row.next_deadline!).toBeLessThanOrEqual(Date.parse(guard.at));

    const extend = await meter();
    const extended = await json(await call("POST", `/v1/leases/${lease.id}/extend`, { key, body: { by: "30m" } }));
    // An extend changes the listed body, which the org's index holds (D1 takes only the quota's new ceiling).
    expect((await meter()).do_rows_written - extend.do_rows_written).toBeGreaterThan(0);
    expect(JSON.parse((await indexed())!.body).ttl_expires_at).toBe(extended.ttl_expires_at);
    const listed = await json(await call("GET", "/v1/leases?state=ready", { key }));
    expect(listed.data.find((l: { id: string }) => l.id === lease.id).ttl_expires_at).toBe(extended.ttl_expires_at);

    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
    // The release's write-through lands right after the lease's own write.
    await waitFor("the org's index says released", async () => JSON.parse((await indexed())!.body).state === "released");
  });

  it("pokes that come while one waits for the writer share its run, and a webhook older than the last read-back runs nothing", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] }, policy: { idle_timeout: null } });
    await waitForState(key, lease.id, "ready");
    const stub = env.LEASE.get(env.LEASE.idFromName(lease.id));
    const reads = async (poke: (o: { tick(toldAt?: number): Promise<void> }) => Promise<unknown>) => {
      const before = (await meter()).provider_calls.sim ?? 0;
      await runInDurableObject(stub, (o) => poke(o as unknown as { tick(toldAt?: number): Promise<void> }));
      return ((await meter()).provider_calls.sim ?? 0) - before;
    };
    // Three pokes in one turn (a burst of webhooks): the first waits for the writer, the others join it.
    expect(await reads((o) => Promise.all([o.tick(), o.tick(), o.tick()]))).toBe(1);
    // A poke after a run has begun is not joined to it: it reads again (this side of the rule can fail).
    expect(await reads(async (o) => {
      const first = o.tick();
      await new Promise((r) => setTimeout(r, 0));
      await Promise.all([first, o.tick()]);
    })).toBe(2);
    expect(await reads((o) => o.tick())).toBe(1);

    // A provider's word of a change made before the lease last read its machine tells it nothing:
    // no run, no read. One made after it (or at the same moment) is read back.
    const observedAt = Date.parse((await getLease(key, lease.id)).machine.observed_at);
    expect(await reads((o) => o.tick(observedAt - 1))).toBe(0);
    expect(await reads((o) => o.tick(observedAt))).toBe(1);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
  });

  it("a typical lease's rows written, phase by phase", async () => {
    const rows = (a: { d1_rows_written: number; do_rows_written: number }, b: { d1_rows_written: number; do_rows_written: number }) => ({ d1: b.d1_rows_written - a.d1_rows_written, object: b.do_rows_written - a.do_rows_written });
    // The org's lease index, written through last (after D1's row).
    const indexed = async (id: string, state: string) =>
      (await runInDurableObject(orgEventsStub(env, org.id) as unknown as DurableObjectStub<OrgEventsObject>, (_o, st) =>
        st.storage.sql.exec<{ state: string }>(`SELECT state FROM leases WHERE id = ?`, id).toArray()[0]?.state,
      )) === state;
    const t0 = await meter();
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] } });
    await waitForState(key, lease.id, "ready");
    await waitFor("the index to say ready", () => indexed(lease.id, "ready"));
    const t1 = await meter();
    expect((await call("POST", `/v1/leases/${lease.id}/heartbeat`, { key, body: {} })).status).toBe(200);
    const t2 = await meter();
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
    await waitFor("the index to say released", () => indexed(lease.id, "released"));
    const t3 = await meter();
    const phases = { create_to_ready: rows(t0, t1), heartbeat: rows(t1, t2), end_to_released: rows(t2, t3) };
    console.log(JSON.stringify({ msg: "rows written by phase", ...phases }));
    // A machine that boots in 100 ms: four events (created, provisioning, machine_created, ready),
    // each with its record, its org log row (no unique index since 2026-12-06) and how far the
    // log's deliveries are queued; a read-back that changed the machine's status; the tables of a
    // new lease (each statement counted since 2026-12-06: the meter saw a multi-statement exec's
    // last one only) and, run alone, of a new org's log; three index writes and their bookkeeping;
    // the machine's enrollment and the agent's first heartbeat. 47 run alone on 2026-12-06 (55
    // before that day's cuts, which hid 12 rows of the tables' statements; 78 before docs/cost.md's).
    expect(phases.create_to_ready.d1).toBeLessThanOrEqual(17); // 23 before the org's lease index (docs/scale.md)
    expect(phases.create_to_ready.object).toBeLessThanOrEqual(47);
    // The record alone (and the agent's own heartbeat, when it is the one in 90 s that is written).
    expect(phases.heartbeat).toEqual({ d1: 0, object: expect.any(Number) });
    expect(phases.heartbeat.object).toBeLessThanOrEqual(2);
    // Two events (releasing, released), each with its record, log row, queued mark and the index's
    // bookkeeping; the release's decision not to wait for outputs in its first write (it was a
    // record write of its own: 13). Before docs/cost.md's cuts: 11 and 22.
    expect(phases.end_to_released.d1).toBeLessThanOrEqual(5); // 9 before the org's lease index
    // With the org's lease index, each of the two writes through is a row of it too (10 before).
    expect(phases.end_to_released.object).toBeLessThanOrEqual(13);
  });
});

describe("a typical lease's steady minutes, at the sim agent's real cadence", () => {
  // Two real minutes, as the cost bench measures them (test/bench/cost.ts): the sim's agent asks for
  // commands and heartbeats every 30 s (its default, agent.sh's), and the user heartbeats once a minute.
  it("write the user's heartbeats, the agent's every 90 s, and the index's bookkeeping: at most 9 object rows in two minutes", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] }, policy: { idle_timeout: "30m" } });
    await waitForState(key, lease.id, "ready");
    await waitFor("the agent's first heartbeat", async () => (await agentSnapshot(lease.id)).last_heartbeat_at, 45_000);
    await new Promise((r) => setTimeout(r, 5_000));
    const t0 = await meter();
    for (let minute = 0; minute < 2; minute++) {
      await new Promise((r) => setTimeout(r, 60_000));
      expect((await call("POST", `/v1/leases/${lease.id}/heartbeat`, { key, body: {} })).status).toBe(200);
    }
    const t1 = await meter();
    const steady = { d1: t1.d1_rows_written - t0.d1_rows_written, object: t1.do_rows_written - t0.do_rows_written };
    console.log(JSON.stringify({ msg: "rows written in two steady minutes", ...steady }));
    // Two user heartbeats (the record, a row each); four agent heartbeats, one or two of them written
    // (src/occupant/heartbeat.ts; each was, before); and at a user heartbeat, when the agent's silence
    // deadline the index holds has passed, the index written again and its bookkeeping (`settle`):
    // none to two, and each such rewrite is a row of the org's lease index too (none to two more).
    // Before heartbeats were held: 6 to 8. Exactly how many of the agent's are written is pinned
    // below, where the index stays out of it.
    expect(steady.object).toBeGreaterThanOrEqual(3);
    expect(steady.object).toBeLessThanOrEqual(9);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
  }, 200_000);

  it("the agent's heartbeats within 90 s of the one stored write no row", async () => {
    await sim().setFaults({ agent_heartbeat_ms: 500 });
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] }, policy: { idle_timeout: "30m" } });
    await waitForState(key, lease.id, "ready");
    await waitFor("the agent's first heartbeat", async () => (await agentSnapshot(lease.id)).last_heartbeat_at);
    const first = (await agentSnapshot(lease.id)).last_heartbeat_at;
    await new Promise((r) => setTimeout(r, 1_000));
    const t0 = await meter();
    await new Promise((r) => setTimeout(r, 5_000));
    const t1 = await meter();
    // About ten heartbeats, each counted (the agent's view moves on), none written; no user call, no alarm due.
    expect(Date.parse((await agentSnapshot(lease.id)).last_heartbeat_at)).toBeGreaterThan(Date.parse(first) + 4_000);
    expect(t1.do_rows_written - t0.do_rows_written).toBe(0);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
  });
});

describe("the lease index's queries", () => {
  it("the reconciler's live machines on a provider use leases_provider_unreleased, which no transition but the release writes", async () => {
    const db = database(env.DB);
    expect(await queryPlan(liveMachinesQuery(db, "sim", null))).toMatch(/USING INDEX leases_provider_unreleased/);
    expect(await queryPlan(liveMachinesQuery(db, "vast", "org_x"))).toMatch(/USING INDEX leases_provider_unreleased \(provider=\? AND org_id=\?\)/);
    // The index that keyed `state` is gone.
    expect(await env.DB.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'leases_provider_live'`).first()).toBeNull();
  });

  it("the org's live leases on a provider (a provider key in use) are found through leases_provider_unreleased, not a scan", async () => {
    const db = database(env.DB);
    const q = db.selectFrom("leases").select("id").where("org_id", "=", "org_x").where("provider", "=", "sim").where("released_at", "is", null);
    expect(await queryPlan(q)).toMatch(/USING INDEX leases_provider_unreleased \(provider=\? AND org_id=\?\)/);
    // The indexes the per-org lists and deadlines used are gone from D1 (migrations/0031).
    for (const name of ["leases_org_state", "leases_org_name", "leases_due"]) {
      expect(await env.DB.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?`).bind(name).first()).toBeNull();
    }
  });
});

