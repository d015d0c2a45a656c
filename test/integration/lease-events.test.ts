/** `GET /v1/leases/:id/events`: pages after an event id, and the live stream (docs/events.md). */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, waitForState } from "./lease-helpers";
import { SseReader } from "./sse-reader";

let org: TestOrg;
let key: string;
let readKey: string;
let lease: { id: string };
const readers: SseReader[] = [];

beforeAll(async () => {
  org = await createOrg();
  key = (await createKey(org, "write")).secret;
  readKey = (await createKey(org, "read")).secret;
  await refreshCatalog();
  await fastSim();
  lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
  await waitForState(key, lease.id, "ready");
});

beforeEach(() => fastSim());
afterEach(async () => {
  for (const r of readers.splice(0)) await r.cancel();
});

async function follow(id: string, headers: Record<string, string> = {}, query = "?follow=1"): Promise<SseReader> {
  const res = await call("GET", `/v1/leases/${id}/events${query}`, { key: readKey, headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(res.headers.get("cache-control")).toContain("no-cache");
  const r = new SseReader(res);
  readers.push(r);
  return r;
}

describe("pages", () => {
  it("pages forward from an event id, and says where the next page starts", async () => {
    const all = await json(await call("GET", `/v1/leases/${lease.id}/events`, { key: readKey }));
    expect(all.data.map((e: any) => e.type)).toEqual(["created", "provisioning", "machine_created", "ready"]);
    expect(all.data.map((e: any) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(all).toMatchObject({ next_after: null, released: false });

    const first = await json(await call("GET", `/v1/leases/${lease.id}/events?after=1&limit=2`, { key: readKey }));
    expect(first.data.map((e: any) => e.seq)).toEqual([2, 3]);
    expect(first.next_after).toBe(3);
    const second = await json(await call("GET", `/v1/leases/${lease.id}/events?after=3&limit=2`, { key: readKey }));
    expect(second.data.map((e: any) => e.seq)).toEqual([4]);
    expect(second.next_after).toBeNull();
    // Exactly at the limit: no next page is promised.
    const exact = await json(await call("GET", `/v1/leases/${lease.id}/events?after=2&limit=2`, { key: readKey }));
    expect(exact.data.map((e: any) => e.seq)).toEqual([3, 4]);
    expect(exact.next_after).toBeNull();
    const none = await json(await call("GET", `/v1/leases/${lease.id}/events?after=4`, { key: readKey }));
    expect(none).toMatchObject({ data: [], next_after: null });
  });

  it("refuses what is not an event id, and hides another org's lease", async () => {
    for (const q of ["after=-1", "after=x", "after=1.5", "after=01", "limit=0", "limit=201", "follow=yes"]) {
      await expectError(await call("GET", `/v1/leases/${lease.id}/events?${q}`, { key: readKey }), 400, "invalid_request");
    }
    await expectError(await call("GET", `/v1/leases/${lease.id}/events?follow=1`, { key: readKey, headers: { "last-event-id": "abc" } }), 400, "invalid_last_event_id");
    const other = await createOrg();
    await expectError(await call("GET", `/v1/leases/${lease.id}/events`, { key: other.adminKey }), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/${lease.id}/events?follow=1`, { key: other.adminKey }), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/ls_00000000000000000000000000/events?follow=1`, { key: readKey }), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/${lease.id}/events`, { key: null }), 401);
  });
});

describe("stream", () => {
  it("frames each event with its id, pushes new ones, and ends with a final event once released", async () => {
    const own = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    await waitForState(key, own.id, "ready");
    const r = await follow(own.id);
    const retry = await r.next();
    expect(retry?.retry).toBe("3000");
    const backlog = await r.events((f) => JSON.parse(f.data!).type === "ready");
    expect(backlog.map((f) => f.id)).toEqual(["1", "2", "3", "4"]);
    for (const f of backlog) {
      expect(f.event).toBeUndefined();
      expect(JSON.parse(f.data!).seq).toBe(Number(f.id));
    }
    expect((await call("POST", `/v1/leases/${own.id}/end`, { key })).status).toBe(200);
    const rest = await r.events((f) => f.event === "end", 30_000);
    const end = rest.at(-1)!;
    expect(end.event).toBe("end");
    expect(end.id).toBeUndefined();
    expect(JSON.parse(end.data!)).toEqual({ lease_id: own.id, state: "released" });
    const live = rest.slice(0, -1).map((f) => JSON.parse(f.data!));
    expect(live.at(-1).type).toBe("released");
    expect(live.map((e) => e.seq)).toEqual(live.map((_, i) => 5 + i));
    expect(await r.next()).toBeNull();
  });

  it("resumes after Last-Event-ID (which wins over after=), and Accept: text/event-stream asks for a stream", async () => {
    const r = await follow(lease.id, { "last-event-id": "2" }, "?follow=1&after=0");
    const got = await r.events((f) => f.id === "4");
    expect(got.map((f) => f.id)).toEqual(["3", "4"]);
    const a = await follow(lease.id, { accept: "application/json, text/event-stream" }, "?after=3");
    expect((await a.events((f) => f.id === "4")).map((f) => f.id)).toEqual(["4"]);
    // follow=0 is a page, whatever Accept says.
    const page = await call("GET", `/v1/leases/${lease.id}/events?follow=0`, { key: readKey, headers: { accept: "text/event-stream" } });
    expect(page.headers.get("content-type")).toContain("application/json");
  });

  it("on a released lease: what was missed, the final event, and the end", async () => {
    const done = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    await waitForState(key, done.id, "ready");
    await call("POST", `/v1/leases/${done.id}/end`, { key });
    await waitForState(key, done.id, "released");
    const r = await follow(done.id, { "last-event-id": "4" });
    const got = await r.events(() => false);
    expect(got.at(-2) && JSON.parse(got.at(-2)!.data!).type).toBe("released");
    expect(got.at(-1)!.event).toBe("end");
    expect(r.ended).toBe(true);
  });
});
