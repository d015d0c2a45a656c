/** The orphan schedule (src/lease/reaper.ts): the times GET /v1/machines shows are those orphanRule acts at. */
import { describe, expect, it } from "vitest";
import { orphanRule, orphanSchedule } from "../../src/lease/reaper";

const M = 60_000;
const H = 60 * M;

describe("orphanSchedule: the times orphanRule acts at", () => {
  const T0 = 1_700_000_000_000;
  const limits = { grace_ms: 5 * M, stopped_ttl_ms: 1 * H, can_stop: true };
  it("a running orphan: stopped at its grace's end, destroyed a stopped ttl later", () => {
    const seen = { status: "running" as const, first_seen_at: T0, stopped_at: null };
    const due = orphanSchedule(seen, limits, T0 + M);
    expect(due).toMatchObject({ stop_at: T0 + 5 * M, destroy_at: T0 + 5 * M + H });
    expect(orphanRule(seen, limits, due.stop_at! - 1).action).toBe("none");
    expect(orphanRule(seen, limits, due.stop_at!).action).toBe("stop");
  });
  it("a stopped orphan: destroyed a stopped ttl after its stop", () => {
    const seen = { status: "stopped" as const, first_seen_at: T0, stopped_at: T0 + 5 * M };
    const due = orphanSchedule(seen, limits, T0 + 6 * M);
    expect(due).toMatchObject({ stop_at: null, destroy_at: T0 + 5 * M + H });
    expect(orphanRule(seen, limits, due.destroy_at - 1).action).toBe("none");
    expect(orphanRule(seen, limits, due.destroy_at).action).toBe("destroy");
  });
  it("where the provider cannot stop: destroyed at its grace's end; first seen now when unseen", () => {
    const seen = { status: "running" as const, first_seen_at: null, stopped_at: null };
    const cannot = { ...limits, can_stop: false };
    expect(orphanSchedule(seen, cannot, T0)).toMatchObject({ stop_at: null, destroy_at: T0 + 5 * M });
    expect(orphanRule({ ...seen, first_seen_at: T0 }, cannot, T0 + 5 * M).action).toBe("destroy");
  });
});
