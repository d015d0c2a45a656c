/**
 * Real answers match the OpenAPI document's schema for their route and status
 * (test/support/response-check.ts): the document describes every answer, so a client generated
 * from it is complete. `call()` checks every answer of every integration test; these walk the
 * areas on purpose, and show the checker refuses what it should.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { ResponseChecker } from "../support/response-check";
import { BASE, call, checkAnswer, createKey, createOrg, json, refreshCatalog } from "./helpers";
import { fastSim, waitForState } from "./lease-helpers";

let checker: ResponseChecker;
let key: string;

beforeAll(async () => {
  checker = new ResponseChecker(await (await SELF.fetch(`${BASE}/v1/openapi.json`)).json());
  const org = await createOrg();
  key = (await createKey(org, "admin")).secret;
  await refreshCatalog();
});

beforeEach(async () => {
  await fastSim();
});

async function checked(method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(method, path, { key, body, unchecked: "checked below, with the checker's own answer shown" });
  const answer = await res.json();
  expect(checker.problems(method, path, res.status, answer)).toEqual([]);
  return answer;
}

it("a lease's answers match Lease, GuardedLease and LeaseEvent, from create to release", async () => {
  const quote = await checked("POST", "/v1/quotes", { spec: { gpu: "l40s:1" }, policy: { ttl: "1h" } });
  const lease = await checked("POST", "/v1/leases", { kind: "scratch", quote_id: quote.id });
  await waitForState(key, lease.id, "ready");
  await checked("GET", `/v1/leases/${lease.id}`);
  await checked("POST", `/v1/leases/${lease.id}/extend`, { by: "30m" });
  await checked("POST", `/v1/leases/${lease.id}/lock`, { for: "10m" });
  await checked("GET", `/v1/leases?limit=5`);
  await checked("GET", `/v1/leases/${lease.id}/events`);
  await checked("POST", `/v1/leases/${lease.id}/end`, {});
  await checked("GET", `/v1/leases/${lease.id}`);
});

it("errors are documented with their status: a bad duration, a missing lease, a conflict", async () => {
  await checked("POST", "/v1/leases", { kind: "scratch", spec: { gpu: "l40s:1" }, policy: { ttl: "soon" } });
  await checked("POST", "/v1/leases", { kind: "scratch", spec: { gpu: "l40s:1" }, quote_id: "qt_x" });
  await checked("GET", "/v1/leases/ls_01jd0000000000000000000000");
  await checked("POST", "/v1/leases/ls_01jd0000000000000000000000/extend", { by: "2 hours" });
});

it("the other areas' answers match too", async () => {
  for (const path of ["/v1/budget", "/v1/quota", "/v1/usage", "/v1/receipts", "/v1/providers", "/v1/catalog/gpus", "/v1/catalog/offers?limit=3", "/v1/catalog/models", "/v1/keys", "/v1/auth/issuers", "/v1/org"]) {
    await checked("GET", path);
  }
});

it("the checker refuses an undocumented status, a body that does not match, and a field the document does not name", async () => {
  expect(checker.problems("GET", "/v1/leases/ls_x", 418, {})).toHaveLength(1);
  expect(checker.problems("GET", "/v1/budget", 200, { monthly_usd: "lots" }).length).toBeGreaterThan(0);
  const budget = await checked("GET", "/v1/budget");
  expect(checker.problems("GET", "/v1/budget", 200, { ...budget, surprise: 1 })).toEqual([
    expect.stringContaining("must NOT have unevaluated properties"),
  ]);
  // GuardedLease extends Lease: closed over both, so Lease's fields pass and no others do.
  const quote = await checked("POST", "/v1/quotes", { spec: { gpu: "l40s:1" }, policy: { ttl: "1h" } });
  const lease = await checked("POST", "/v1/leases", { kind: "scratch", quote_id: quote.id });
  const guarded = await checked("GET", `/v1/leases/${lease.id}`);
  expect(checker.problems("GET", `/v1/leases/${lease.id}`, 200, { ...guarded, guard: { ...guarded.guard, extra: true } })).not.toEqual([]);
  expect(checker.problems("GET", `/v1/leases/${lease.id}`, 200, { ...guarded, machine: { id: "m", label: null, status: null, observed_at: null, ip: "10.0.0.1" } })).not.toEqual([]);
  // An error's code is one its route documents.
  const conflict = { error: { code: "invalid_state", message: "m", details: {} }, request_id: "req_x" };
  expect(checker.problems("POST", `/v1/leases/${lease.id}/stop`, 409, conflict)).toEqual([]);
  expect(checker.problems("POST", `/v1/leases/${lease.id}/stop`, 409, { ...conflict, error: { ...conflict.error, code: "no_capacity" } })).not.toEqual([]);
  // An event's detail is the one its type carries.
  const { data: events } = await checked("GET", `/v1/leases/${lease.id}/events`);
  const created = events.find((e: any) => e.type === "created");
  expect(checker.problems("GET", `/v1/leases/${lease.id}/events`, 200, { data: [{ ...created, detail: { ...created.detail, secret: "x" } }] })).not.toEqual([]);
  await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
});

it("call() checks with checkAnswer, which fails on an answer the document does not describe", async () => {
  const budget = await json(await call("GET", "/v1/budget", { key }));
  const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  await expect(checkAnswer("GET", "/v1/budget", answer(200, budget))).resolves.toBeUndefined();
  await expect(checkAnswer("GET", "/v1/budget", answer(200, { ...budget, extra: 1 }))).rejects.toThrow(/not the one the OpenAPI document describes/);
  await expect(checkAnswer("GET", "/v1/budget", answer(418, budget))).rejects.toThrow(/status 418 is not documented/);
});
