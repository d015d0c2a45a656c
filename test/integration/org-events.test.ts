/** `GET /v1/events`: the org's log, fanned out by one object per org (docs/events.md). */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { orgEventsStub } from "../../src/events/forward";
import { ORG_LOG_RETAINED } from "../../src/events/org-events";
import type { LeaseEvent } from "../../src/lease/object";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, fastSim, getLease, restartedWith, waitFor, waitForState } from "./lease-helpers";
import { SseReader } from "./sse-reader";

let key: string;
let readKey: string;
let org: TestOrg;
const readers: SseReader[] = [];

beforeAll(async () => {
  await refreshCatalog();
});

beforeEach(async () => {
  await fastSim();
  org = await createOrg();
  key = (await createKey(org, "write")).secret;
  readKey = (await createKey(org, "read")).secret;
});

afterEach(async () => {
  for (const r of readers.splice(0)) await r.cancel();
});

async function follow(headers: Record<string, string> = {}, as = readKey): Promise<SseReader> {
  const res = await call("GET", "/v1/events?follow=1", { key: as, headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const r = new SseReader(res);
  readers.push(r);
  return r;
}

const page = async (q = "") => json(await call("GET", `/v1/events${q}`, { key: readKey }));

const fakeEvent = (seq: number): LeaseEvent => ({ seq, at: new Date().toISOString(), type: "heartbeat", from: "ready", to: "ready", reason: null, detail: {} });
/** The org's log object started again, as after an eviction: what it remembered in memory is gone. */
const orgRestarted = () => runInDurableObject(orgEventsStub(env, org.id), (_o, state) => state.abort("the test restarts the org's log")).catch(() => undefined);

describe("GET /v1/events", () => {
  it("streams every lease's events as the leases append them, with the org log's ids", async () => {
    const r = await follow();
    const other = await createOrg();
    const foreign = await follow({}, other.adminKey);
    const a = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    const b = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    const seen = new Map<string, string[]>();
    const got = await r.events((f) => {
      const e = JSON.parse(f.data!);
      expect(e.id).toBe(Number(f.id));
      seen.set(e.lease_id, [...(seen.get(e.lease_id) ?? []), e.type]);
      return (seen.get(a.id)?.includes("ready") && seen.get(b.id)?.includes("ready")) ?? false;
    }, 20_000);
    expect(got.map((f) => Number(f.id))).toEqual(got.map((_, i) => i + 1));
    expect(seen.get(a.id)).toEqual(["created", "provisioning", "machine_created", "ready"]);
    expect(seen.get(b.id)).toEqual(["created", "provisioning", "machine_created", "ready"]);
    // Another org's stream saw none of it.
    await expect(foreign.events(() => true, 500)).rejects.toThrow(/no frame/);

    // A page says the same, and resumes after an id.
    const all = await page();
    expect(all.data.map((e: any) => e.id)).toEqual(got.map((f) => Number(f.id)));
    expect(all.next_after).toBeNull();
    const part = await page("?after=2&limit=3");
    expect(part.data.map((e: any) => e.id)).toEqual([3, 4, 5]);
    expect(part.next_after).toBe(5);

    // A reconnect resumes after Last-Event-ID.
    const again = await follow({ "last-event-id": "6" });
    expect((await again.events((f) => f.id === "8")).map((f) => f.id)).toEqual(["7", "8"]);
  });

  it("takes a repeated forward once, and catches up a missed one on the lease's next change", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    await waitForState(key, lease.id, "ready");
    await waitFor("the log to hold the lease's 4 events", async () => (await page()).data.length === 4);
    const stub = orgEventsStub(env, org.id);
    expect(await stub.append(org.id, lease.id, [fakeEvent(1), fakeEvent(2)])).toBe(0);
    // The log's object started again (what it remembered of the lease gone): read from the log, still a repeat.
    await orgRestarted();
    expect(await orgEventsStub(env, org.id).append(org.id, lease.id, [fakeEvent(2), fakeEvent(3), fakeEvent(4)])).toBe(0);
    expect((await page()).data.map((e: any) => e.seq)).toEqual([1, 2, 3, 4]);

    // The forwards of events 3 and 4 are lost: the log lacks them (its object started again since)
    // and the lease, started again (what it held in memory gone), has stored that it sent 2.
    await runInDurableObject(orgEventsStub(env, org.id), (_o, state) => {
      state.storage.sql.exec(`DELETE FROM log WHERE key IN (?, ?)`, `${lease.id}.3`, `${lease.id}.4`);
    });
    await orgRestarted();
    await restartedWith(lease.id, `UPDATE lease SET forwarded_seq = 2`);
    expect((await page()).data.map((e: any) => e.seq)).toEqual([1, 2]);
    expect((await call("POST", `/v1/leases/${lease.id}/heartbeat`, { key })).status).toBe(200);
    const after = await waitFor("the catch-up", async () => {
      const d = (await page()).data;
      return d.length >= 4 ? d : null;
    });
    expect(after.map((e: any) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(after.map((e: any) => e.type)).toEqual(["created", "provisioning", "machine_created", "ready"]);
  });

  it("a lease object stored before its row kept how far the org's log has its events is upgraded with what it had sent", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    await waitForState(key, lease.id, "ready");
    await waitFor("the log to hold the lease's 4 events", async () => (await page()).data.filter((e: any) => e.lease_id === lease.id).length === 4);
    const leaseSql = async <T,>(q: string) => runInDurableObject(env.LEASE.get(env.LEASE.idFromName(lease.id)), (_o, state) => state.storage.sql.exec(q).toArray() as T[]);
    // The layout of schema version 2: `forwarded_seq` in `meta`. The forwards of events 3 and 4 are lost.
    await runInDurableObject(orgEventsStub(env, org.id), (_o, state) => {
      state.storage.sql.exec(`DELETE FROM log WHERE key IN (?, ?)`, `${lease.id}.3`, `${lease.id}.4`);
    });
    await orgRestarted();
    await restartedWith(
      lease.id,
      `ALTER TABLE lease DROP COLUMN forwarded_seq;
       INSERT INTO meta (key, value) VALUES ('forwarded_seq', '2');
       UPDATE meta SET value = '2' WHERE key = 'schema_version'`,
    );
    expect((await getLease(key, lease.id)).state).toBe("ready");
    expect(await leaseSql(`SELECT forwarded_seq FROM lease`)).toEqual([{ forwarded_seq: 2 }]);
    expect(await leaseSql(`SELECT key, value FROM meta WHERE key IN ('forwarded_seq', 'schema_version') ORDER BY key`)).toEqual([{ key: "schema_version", value: "3" }]);
    expect((await call("POST", `/v1/leases/${lease.id}/heartbeat`, { key })).status).toBe(200);
    const mine = await waitFor("the catch-up", async () => {
      const d = (await page()).data.filter((e: any) => e.lease_id === lease.id);
      return d.length >= 4 ? d : null;
    });
    expect(mine.map((e: any) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(await leaseSql(`SELECT forwarded_seq FROM lease`)).toEqual([{ forwarded_seq: 4 }]);
    // The events (numbered by rowid) go on from the largest after the restart.
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
    expect((await events(key, lease.id)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it(`keeps the newest ${ORG_LOG_RETAINED} events; resuming before them is 410 events_gone`, async () => {
    const stub = orgEventsStub(env, org.id);
    const total = ORG_LOG_RETAINED + 5;
    const events = Array.from({ length: total }, (_, i) => fakeEvent(i + 1));
    for (let i = 0; i < total; i += 200) await stub.append(org.id, "ls_00000000000000000000000000", events.slice(i, i + 200));
    // ids 1..1005 were given; 6..1005 are kept.
    const gone = await expectError(await call("GET", "/v1/events?after=4", { key: readKey }), 410, "events_gone");
    expect(gone.details).toEqual({ oldest_kept: 6 });
    await expectError(await call("GET", "/v1/events?follow=1", { key: readKey, headers: { "last-event-id": "0" } }), 410, "events_gone");
    const first = await page("?after=5&limit=1");
    expect(first.data.map((e: any) => e.id)).toEqual([6]);
    const r = await follow({ "last-event-id": "1004" });
    expect((await r.events(() => true)).map((f) => f.id)).toEqual(["1005"]);
  });

  it("needs a credential, and refuses what is not an event id", async () => {
    await expectError(await call("GET", "/v1/events?follow=1", { key: null }), 401);
    await expectError(await call("GET", "/v1/events?after=abc", { key: readKey }), 400, "invalid_request");
    await expectError(await call("GET", "/v1/events?follow=1", { key: readKey, headers: { "last-event-id": "-3" } }), 400, "invalid_last_event_id");
    // An empty org: an empty page, and a stream that stays open.
    expect(await page()).toEqual({ data: [], next_after: null });
    const r = await follow();
    expect((await r.next())?.retry).toBe("3000");
  });
});
