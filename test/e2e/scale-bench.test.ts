/**
 * The scale bench's harness (test/bench/scale.ts), small: 2 orgs of 50 leases instead of 100 of
 * 1,000, in the same Miniflare workerd with the same Worker and the same steps, so that the bench
 * cannot rot between its runs. Here with the e2e tests: it starts a real runtime from Node, as
 * they do. Nothing is timed against a target here (targets are the bench's); what is checked is
 * what the figures rest on: every lease landed in its org's index, the list reads the org's object
 * and no D1, the backstop asks every org and pokes exactly the due share, an org's alarm pokes
 * what came due, and an org's object reads its live leases when it starts.
 */
import { describe, expect, it } from "vitest";
import { benchScale, LIST_FIRST, SCALE_SMALL, scaleRows } from "../bench/scale";

describe("the scale bench, small", () => {
  it("runs every step and measures what it says", { timeout: 90_000 }, async () => {
    const r = await benchScale(() => undefined, SCALE_SMALL);
    expect(r.leases).toBe(100);

    // The list is the org's object's: no D1 statement, and a full first page.
    const first = r.requests[LIST_FIRST]!;
    expect(first.d1_queries).toBe(0);
    expect(first.do_requests).toBeGreaterThanOrEqual(1);
    expect(r.list[LIST_FIRST]!.rows).toBe(50);
    expect(r.list["GET /v1/leases?state=stopped"]!.rows).toBe(3); // 1 in 20 of the 50

    // A transition's write-through is one object call; a heartbeat that changes nothing listed writes no D1 row.
    expect(r.requests["sync: a transition (row and one event)"]!.do_requests).toBe(1);
    // Its events find the org's webhook endpoints in the object's memory: no D1 statement.
    expect(r.requests["sync: a transition (row and one event)"]!.d1_queries).toBe(0);
    expect(r.requests["POST /v1/leases/:id/heartbeat"]!.d1_rows_written).toBe(0);

    // The reconciler's read spans every live lease on the provider: the seeded ones, the real ones released.
    expect(r.d1.reconciler_live.rows).toBe(100);

    // Every org asked (the two, the small one); the due share poked, none failed; then nothing left due.
    expect(r.backstop.due).toMatchObject({ orgs: 3, due: 10, failed: 0 });
    expect(r.backstop.due.cost.do_requests).toBeGreaterThanOrEqual(3 + 10);
    expect(r.backstop.idle).toMatchObject({ orgs: 3, due: 0 });
    expect(r.backstop.cold).toMatchObject({ orgs: 3, due: 0, failed: 0 });
    // Each stopped object read its live leases as it started.
    expect(r.backstop.cold.cost.do_rows_read).toBeGreaterThanOrEqual(2 * 50);
    expect(r.backstop.one_org_sweep.due).toBe(5);
    expect(r.backstop.alarm.cost.do_alarms).toBeGreaterThanOrEqual(1);
    expect(r.backstop.alarm.cost.do_requests).toBeGreaterThanOrEqual(r.backstop.alarm.due);

    // An org's object, started again, reads its live leases once.
    expect(r.cold.first_list.cost.do_rows_read).toBeGreaterThanOrEqual(50);
    expect(r.cold.orgs_started).toBe(2);
    // The index in memory holds every live lease (a few hundred bytes each, not nothing).
    for (const m of r.memory) expect(m.bytes_per_lease).toBeGreaterThan(50);

    const rows = scaleRows(r);
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row).toHaveLength(5);
  });
});
