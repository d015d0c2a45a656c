/**
 * Real answers match the OpenAPI document's schema for their route and status
 * (test/support/response-check.ts): the document describes every answer, so a client generated
 * from it is complete.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { ResponseChecker } from "../support/response-check";
import { BASE, call, createKey, createOrg, refreshCatalog } from "./helpers";
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
  const res = await call(method, path, { key, body });
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
  for (const path of ["/v1/budget", "/v1/usage", "/v1/receipts", "/v1/providers", "/v1/catalog/gpus", "/v1/catalog/offers?limit=3", "/v1/keys", "/v1/auth/issuers", "/v1/org"]) {
    await checked("GET", path);
  }
});

it("the checker refuses an undocumented status and a body that does not match", () => {
  expect(checker.problems("GET", "/v1/leases/ls_x", 418, {})).toHaveLength(1);
  expect(checker.problems("GET", "/v1/budget", 200, { monthly_usd: "lots" }).length).toBeGreaterThan(0);
});
