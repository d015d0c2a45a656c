import { describe, expect, it } from "vitest";
import { machinesNotSeen } from "../../src/providers/account-check";
import type { Machine } from "../../src/providers/contract";

const machine = (id: string): Machine => ({
  id,
  label: "lessor-dev-ls_x-a1",
  status: "running",
  offer_id: "o",
  host_id: "h",
  region: "r",
  hourly_usd: 1,
  stopped_hourly_usd: 0,
  created_at: 0,
});

describe("machinesNotSeen (docs/design.md, Provider keys)", () => {
  it("names every held machine the new key's listing does not show, and only those", () => {
    const held = [
      { lease_id: "ls_a", machine_id: "m1" },
      { lease_id: "ls_b", machine_id: "m2" },
      { lease_id: "ls_c", machine_id: "m3" },
    ];
    expect(machinesNotSeen(held, [machine("m1"), machine("m3"), machine("other")])).toEqual([{ lease_id: "ls_b", machine_id: "m2" }]);
    expect(machinesNotSeen(held, [])).toEqual(held);
    expect(machinesNotSeen([], [machine("m1")])).toEqual([]);
  });
});
