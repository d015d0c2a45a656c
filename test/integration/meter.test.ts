/**
 * The control plane's own consumption is counted where it happens (src/metering.ts): one lease's
 * life moves every counter the cost bench prices. A counter that stops counting fails here.
 */
import { describe, expect, it } from "vitest";
import { BOOTSTRAP, call, expectError, json } from "./helpers";
import { createLease, leaseSuite, waitForState } from "./lease-helpers";

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
});
