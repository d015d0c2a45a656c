/**
 * The pure pieces of what volumes cost (docs/volumes.md "What a volume costs"): what a new volume
 * reserves, the periods its receipts cover and their estimates, the sim's records of its storage,
 * and when a volume became idle.
 */
import { describe, expect, it } from "vitest";
import { volumeReservation } from "../../src/billing/budget";
import { monthAfter, nextVolumePeriod, volumeEstimateMicros } from "../../src/billing/volume-receipts";
import { SIM_VOLUME_USD_PER_GB_MONTH, volumeBilling } from "../../src/providers/sim/machines";
import { idleSince } from "../../src/volumes/idle";

const H = 3_600_000;
const MONTH_MS = 730 * H;
const DEC = Date.UTC(2026, 11, 1);
const JAN = Date.UTC(2027, 0, 1);

describe("a volume's reservation", () => {
  it("is its rate, and what it bills from now to the month's end, at its stated price", () => {
    const now = DEC + 21 * 24 * H; // 22 Dec
    const r = volumeReservation(100, 100_000, now); // 100 GB at $0.10
    expect(r.hourly_micro_usd).toBe(Math.round((100_000 * 100) / 730));
    expect(r.unbounded).toBe(false);
    expect(r.months).toEqual({ "2026-12": Math.round((100_000 * 100 * (JAN - now)) / MONTH_MS) });
  });

  it("is nothing where the provider states no price (never a guess)", () => {
    expect(volumeReservation(4000, null, DEC)).toEqual({ hourly_micro_usd: 0, unbounded: false, months: { "2026-12": 0 } });
  });
});

describe("a volume's receipt periods", () => {
  it("are UTC months, the first from its creation, the last cut at its deletion", () => {
    const made = DEC + 5 * H;
    const bill = { settled_through: made, deleted_at: null as number | null };
    expect(nextVolumePeriod(bill, JAN - 1)).toBeNull(); // the month has not ended
    expect(nextVolumePeriod(bill, JAN)).toEqual({ start: made, end: JAN });
    expect(nextVolumePeriod({ settled_through: JAN, deleted_at: JAN + 3 * H }, JAN + 3 * H)).toEqual({ start: JAN, end: JAN + 3 * H });
    expect(nextVolumePeriod({ settled_through: made, deleted_at: made + H }, made + H)).toEqual({ start: made, end: made + H });
    // Settled through its deletion: nothing more.
    expect(nextVolumePeriod({ settled_through: made + H, deleted_at: made + H }, JAN * 2)).toBeNull();
    expect(monthAfter(Date.UTC(2026, 1, 28, 23))).toBe(Date.UTC(2026, 2, 1));
  });

  it("estimate the size at the stated price over the period, or null without a price", () => {
    expect(volumeEstimateMicros({ size_gb: 10, gb_month_micro_usd: 100_000 }, 0, MONTH_MS)).toBe(1_000_000);
    expect(volumeEstimateMicros({ size_gb: 10, gb_month_micro_usd: 100_000 }, 0, H)).toBe(Math.round(1_000_000 / 730));
    expect(volumeEstimateMicros({ size_gb: 10, gb_month_micro_usd: null }, 0, H)).toBeNull();
  });
});

describe("the sim's volume records", () => {
  const volume = { id: "sim-v-1", label: "lessor-t-vol_1", size_gb: 730, price_per_gb_month: SIM_VOLUME_USD_PER_GB_MONTH, created_at: 10 * H + 30 * 60_000, deleted_at: 12 * H + 15 * 60_000 };

  it("bill its size at its price from creation to deletion, by closed window, mounted or not", () => {
    const records = volumeBilling([volume], 0, 20 * H, 14 * H);
    // 730 GB at $0.10 a GB-month: $0.10 an hour.
    expect(records.map((r) => [r.record_id, r.window_start, r.amount_usd])).toEqual([
      ["volume:sim-v-1:36000000", 10 * H, 0.05],
      ["volume:sim-v-1:39600000", 11 * H, 0.1],
      ["volume:sim-v-1:43200000", 12 * H, 0.025],
    ]);
    expect(records[0]!.gb_seconds).toBe(730 * 1800);
  });

  it("publish a window only once it has closed (and its delay passed), with any markup", () => {
    expect(volumeBilling([{ ...volume, deleted_at: null }], 0, 20 * H, 12 * H + 10).map((r) => r.window_start)).toEqual([10 * H, 11 * H]);
    expect(volumeBilling([volume], 0, 20 * H, 14 * H, { delay_ms: 2 * H }).map((r) => r.window_start)).toEqual([10 * H, 11 * H]);
    expect(volumeBilling([volume], 0, 20 * H, 14 * H, { markup: 1 })[1]!.amount_usd).toBe(0.2);
    expect(volumeBilling([volume], 11 * H, 12 * H, 14 * H).map((r) => r.window_start)).toEqual([11 * H]);
  });
});

describe("idle_since", () => {
  it("is null while a lease mounts it; else the last release of one that did, or its creation", () => {
    expect(idleSince({ created_at: 100 }, ["ls_1"], 500)).toBeNull();
    expect(idleSince({ created_at: 100 }, [], null)).toBe(100);
    expect(idleSince({ created_at: 100 }, [], 500)).toBe(500);
  });
});
