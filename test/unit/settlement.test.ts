/**
 * lease/billing.ts `settlementOf` and `releasedHold`: which receipt a lease takes (guarantee 7: a
 * settled lease never takes another), and what a released lease holds against its org's caps.
 */
import { describe, expect, it } from "vitest";
import { releasedHold, settlementOf, type Settlement } from "../../src/lease/billing";
import type { LeaseRecord } from "../../src/lease/state";
import { H, lease, T0 } from "../support/lease-fixture";

const receipt: Settlement = { receipt_id: "rc_1", status: "settled", actual_micro_usd: 2_500_000 };
const awaiting = (patch: Partial<LeaseRecord> = {}) =>
  lease("released", {
    released_at: T0 + H,
    billing: { status: "awaiting_windows", segments: [{ from: T0, to: T0 + H, kind: "running", rate: 2_000_000 }], receipt_id: null, actual_micro_usd: null },
    ...patch,
  });

describe("settlementOf", () => {
  it("a released lease awaiting its windows takes the receipt", () => {
    const plan = settlementOf(awaiting(), "org_test", receipt);
    expect(plan).toMatchObject({
      step: {
        next: { billing: { status: "settled", receipt_id: "rc_1", actual_micro_usd: 2_500_000 } },
        effect: { event: "billing_settled", detail: { receipt_id: "rc_1", status: "settled", actual_usd: 2.5 } },
      },
    });
  });
  it("no lease, another org's, one not released, or one that billed nothing: false, nothing changes", () => {
    expect(settlementOf(null, "org_test", receipt)).toEqual({ answer: false });
    expect(settlementOf(awaiting(), "org_other", receipt)).toEqual({ answer: false });
    expect(settlementOf(lease("ready"), "org_test", receipt)).toEqual({ answer: false });
    expect(settlementOf(awaiting({ billing: { ...awaiting().billing, status: "none" } }), "org_test", receipt)).toEqual({ answer: false });
  });
  it("already settled or disputed: true for the same receipt, false for another, never a change", () => {
    for (const status of ["settled", "disputed"] as const) {
      const done = awaiting({ billing: { ...awaiting().billing, status, receipt_id: "rc_1" } });
      expect(settlementOf(done, "org_test", receipt)).toEqual({ answer: true });
      expect(settlementOf(done, "org_test", { ...receipt, receipt_id: "rc_2" })).toEqual({ answer: false });
    }
  });
});

describe("releasedHold", () => {
  it("a live lease: null, its reservation stands", () => {
    expect(releasedHold(lease("releasing"), T0 + H)).toBeNull();
  });
  it("a released lease: what it accrued, not its worst case", () => {
    const hold = releasedHold(awaiting({ reserved: { hourly_micro_usd: 2_000_000, unbounded: false, months: { "2026-11": 8_000_000 } } }), T0 + 2 * H)!;
    expect(hold.unbounded).toBe(false);
    expect(hold.months["2026-11"]).toBe(2_000_000);
  });
});
