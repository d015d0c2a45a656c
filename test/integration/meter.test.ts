/**
 * The control plane's own consumption is counted where it happens (src/metering.ts): one lease's
 * life moves every counter the cost bench prices. A counter that stops counting fails here.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BOOTSTRAP, call, expectError, json } from "./helpers";
import { createLease, getLease, leaseSuite, waitForState } from "./lease-helpers";

let key: string;
leaseSuite((_o, k) => {
  key = k;
});

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
    const indexed = () => env.DB.prepare(`SELECT next_deadline, body FROM leases WHERE id = ?`).bind(lease.id).first<{ next_deadline: number | null; body: string }>();
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
    expect((await meter()).d1_rows_written - extend.d1_rows_written).toBeGreaterThan(0);
    expect(JSON.parse((await indexed())!.body).ttl_expires_at).toBe(extended.ttl_expires_at);
    const listed = await json(await call("GET", "/v1/leases?state=ready", { key }));
    expect(listed.data.find((l: { id: string }) => l.id === lease.id).ttl_expires_at).toBe(extended.ttl_expires_at);

    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
    expect(JSON.parse((await indexed())!.body).state).toBe("released");
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
});
