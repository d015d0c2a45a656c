/**
 * Lease names (src/lease/names.ts): unique among an org's live leases, freed by release, found by
 * `GET /v1/leases?name=`, claimed race-free in D1 (`lease_names`).
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { PENDING_MS } from "../../src/billing/budget";
import { call, createKey, createOrg, expectError, json, type TestOrg } from "./helpers";
import { createLease, leaseSuite, waitForState } from "./lease-helpers";

let org: TestOrg;
let key: string;
let n = 0;

/** A name no other test uses. */
const fresh = () => `job-${++n}-${crypto.randomUUID().slice(0, 8)}`;
const named = (name: unknown) => ({ kind: "scratch", spec: { gpu: "l40s:1" }, policy: { ttl: "1h" }, name });
const create = (k: string, body: Record<string, unknown>) => call("POST", "/v1/leases", { key: k, body });

async function listByName(k: string, name: string): Promise<any[]> {
  const res = await call("GET", `/v1/leases?name=${encodeURIComponent(name)}`, { key: k });
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

async function end(k: string, id: string) {
  expect((await call("POST", `/v1/leases/${id}/end`, { key: k })).status).toBe(200);
  return waitForState(k, id, "released");
}

leaseSuite((o, k) => {
  org = o;
  key = k;
});

// Every test's leases are released before the next test resets the sim (leaseSuite's
// beforeEach): a lease still booting when its machine is wiped loses it, marks its host bad for
// this org, and after four such hosts the org's next l40s lease found no capacity.
afterEach(async () => {
  const live = await env.DB.prepare(`SELECT id FROM leases WHERE org_id = ? AND released_at IS NULL`).bind(org.id).all<{ id: string }>();
  await Promise.all(
    live.results.map(async ({ id }) => {
      const res = await call("POST", `/v1/leases/${id}/end`, { key });
      await res.body?.cancel();
      if (res.status === 200) await waitForState(key, id, "released");
    }),
  );
});

describe("lease names", () => {
  it("a lease created with a name shows it, in its answer, its read and the list by name", async () => {
    const name = fresh();
    const lease = await createLease(key, named(name));
    expect(lease.name).toBe(name);
    expect((await json(await call("GET", `/v1/leases/${lease.id}`, { key }))).name).toBe(name);
    expect((await listByName(key, name)).map((l) => [l.id, l.name])).toEqual([[lease.id, name]]);
    expect(await listByName(key, fresh())).toEqual([]);
  });

  it("a lease without a name has name null and holds none", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" }, policy: { ttl: "1h" } });
    expect(lease.name).toBeNull();
    const held = await env.DB.prepare(`SELECT COUNT(*) AS n FROM lease_names WHERE lease_id = ?`).bind(lease.id).first<{ n: number }>();
    expect(held?.n).toBe(0);
  });

  it("a second live lease with the name is refused with 409 name_taken, naming the holder", async () => {
    const name = fresh();
    const first = await createLease(key, named(name));
    const e = await expectError(await create(key, named(name)), 409, "name_taken");
    expect(e.details).toEqual({ name, lease_id: first.id });
    expect((await listByName(key, name)).map((l) => l.id)).toEqual([first.id]);
  });

  it("of 10 concurrent creates with one name exactly one wins", async () => {
    const name = fresh();
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(key, named(name))));
    const bodies = await Promise.all(answers.map((r) => json(r)));
    const won = answers.flatMap((r, i) => (r.status === 202 ? [bodies[i]] : []));
    expect(won).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409).length).toBe(9);
    for (const [i, r] of answers.entries()) if (r.status === 409) expect(bodies[i].error.code).toBe("name_taken");
    const rows = await env.DB.prepare(`SELECT lease_id FROM lease_names WHERE org_id = ? AND name = ?`).bind(org.id, name).all<{ lease_id: string }>();
    expect(rows.results).toEqual([{ lease_id: won[0].id }]);
    expect((await listByName(key, name)).map((l) => l.id)).toEqual([won[0].id]);
  });

  it("a released lease frees its name; the list by name keeps both, newest first", async () => {
    const name = fresh();
    const first = await createLease(key, named(name));
    await end(key, first.id);
    const second = await createLease(key, named(name));
    expect(second.name).toBe(name);
    expect((await listByName(key, name)).map((l) => [l.id, l.state])).toEqual([
      [second.id, second.state],
      [first.id, "released"],
    ]);
    const live = await call("GET", `/v1/leases?name=${name}&state=released`, { key });
    expect((await json(live)).data.map((l: any) => l.id)).toEqual([first.id]);
    await expectError(await create(key, named(name)), 409, "name_taken");
  });

  it("another org may use the same name, and does not see this org's lease by it", async () => {
    const name = fresh();
    const mine = await createLease(key, named(name));
    const other = await createOrg();
    const otherKey = (await createKey(other, "write")).secret;
    const theirs = await createLease(otherKey, named(name));
    expect(theirs.name).toBe(name);
    expect((await listByName(otherKey, name)).map((l) => l.id)).toEqual([theirs.id]);
    expect((await listByName(key, name)).map((l) => l.id)).toEqual([mine.id]);
  });

  it.each([
    ["", "empty"],
    ["-job", "a leading '-'"],
    ["Job", "an uppercase letter"],
    ["job_1", "an underscore"],
    ["job 1", "a space"],
    ["j".repeat(64), "64 characters"],
    [7, "a number"],
    [null, "null"],
  ] as Array<[unknown, string]>)("refuses the name %j (%s) with 400", async (name) => {
    const e = await expectError(await create(key, named(name)), 400, "invalid_request");
    // A string that breaks the pattern is named as such; a value of another type fails the whole union.
    if (typeof name === "string") expect(JSON.stringify(e.details)).toContain("a lease name is 1 to 63 lowercase letters");
  });

  it.each([["a"], ["0"], ["j".repeat(63)], ["a-"], ["9-lives--x"]])("accepts the name %j", async (name) => {
    const id = (await createLease(key, named(name))).id;
    await end(key, id);
  });

  it("refuses a malformed ?name= with 400", async () => {
    await expectError(await call("GET", "/v1/leases?name=Not_A_Name", { key }), 400, "invalid_request");
  });

  it("a create refused by the budget gives its name back", async () => {
    const o = await createOrg();
    const name = fresh();
    await call("PUT", "/v1/budget", { key: o.adminKey, body: { monthly_usd: 0.01 } });
    await expectError(await create(o.adminKey, named(name)), 402, "over_budget");
    await call("PUT", "/v1/budget", { key: o.adminKey, body: { monthly_usd: null } });
    expect((await createLease(o.adminKey, named(name))).name).toBe(name);
  });

  it("a claim whose lease never reached the index is taken over once PENDING_MS has passed, not before", async () => {
    const now = Date.now();
    const [young, old] = [fresh(), fresh()];
    const claim = `INSERT INTO lease_names (org_id, name, lease_id, created_at) VALUES (?, ?, ?, ?)`;
    await env.DB.prepare(claim).bind(org.id, young, "ls_neverreachedtheindex0000a", now - PENDING_MS + 60_000).run();
    await env.DB.prepare(claim).bind(org.id, old, "ls_neverreachedtheindex0000b", now - PENDING_MS - 60_000).run();
    await expectError(await create(key, named(young)), 409, "name_taken");
    const taken = await createLease(key, named(old));
    const row = await env.DB.prepare(`SELECT lease_id FROM lease_names WHERE org_id = ? AND name = ?`).bind(org.id, old).first<{ lease_id: string }>();
    expect(row?.lease_id).toBe(taken.id);
  });

  it("an old claim whose lease is in the index and live is never taken over", async () => {
    const name = fresh();
    const first = await createLease(key, named(name));
    await env.DB.prepare(`UPDATE lease_names SET created_at = ? WHERE lease_id = ?`).bind(Date.now() - 2 * PENDING_MS, first.id).run();
    await expectError(await create(key, named(name)), 409, "name_taken");
  });
});
