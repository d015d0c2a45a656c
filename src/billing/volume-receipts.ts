/**
 * Volumes' receipts, the billing step's last part (docs/billing.md "Volumes"). A volume bills for
 * its size from its creation to its deletion, with no end of its own, so its storage is settled a
 * period at a time: each UTC month it lived in, the last one cut at its deletion. A period's
 * receipt is written once its end has passed and its provider account's records are complete
 * through it (the cursor the fetch step keeps, as a lease's receipt waits for its release), from
 * the provider's records of the volume only (guarantee 7); the estimate beside it is the volume's
 * size at the price its provider stated, or null where the provider states none (then the receipt
 * is never `disputed`: there is nothing to dispute it with).
 *
 * Level-triggered and idempotent like the rest of the step: a period's receipt is unique by volume
 * and period start, and the bill's `settled_through` moves past it by compare-and-swap, so a
 * second run (or one after a run that died between the two writes) writes nothing twice.
 */
import { sql } from "kysely";
import type { Db } from "../db";
import { newId } from "../ids";
import { VOLUME_MONTH_MS } from "./budget";
import { beyondTolerance } from "./money";
import { sumRecords } from "./receipts";

/** Bills looked at in one run; the rest next minute. */
const SETTLE_BATCH = 200;

export interface VolumeBill {
  volume_id: string;
  org_id: string;
  provider: string;
  size_gb: number;
  gb_month_micro_usd: number | null;
  billed_from: number;
  deleted_at: number | null;
  settled_through: number;
}

/** The first instant of the UTC month after the one `ms` falls in. */
export function monthAfter(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * The next period of a bill to receipt, [start, end): from where its receipts end to the end of
 * that month or the volume's deletion, whichever is first; null when there is none, or when its
 * end has not passed by `now`.
 */
export function nextVolumePeriod(bill: Pick<VolumeBill, "deleted_at" | "settled_through">, now: number): { start: number; end: number } | null {
  const start = bill.settled_through;
  if (bill.deleted_at !== null && start >= bill.deleted_at) return null;
  const end = Math.min(monthAfter(start), bill.deleted_at ?? Infinity);
  return end <= now ? { start, end } : null;
}

/** What the volume bills over [start, end) at its stated price, micro-dollars; null where no price is stated. */
export function volumeEstimateMicros(bill: Pick<VolumeBill, "size_gb" | "gb_month_micro_usd">, start: number, end: number): number | null {
  if (bill.gb_month_micro_usd === null) return null;
  return Math.round((bill.gb_month_micro_usd * bill.size_gb * Math.max(0, end - start)) / VOLUME_MONTH_MS);
}

export interface VolumeSettleReport {
  due: number;
  settled: number;
  disputed: number;
  failed: number;
}

export async function settleVolumes(db: Db, now: number): Promise<VolumeSettleReport> {
  const monthEnd = sql<number>`(CAST(strftime('%s', v.settled_through / 1000, 'unixepoch', 'start of month', '+1 month') AS INTEGER) * 1000)`;
  const periodEnd = sql<number>`MIN(COALESCE(v.deleted_at, ${monthEnd}), ${monthEnd})`;
  // Due: a period that has ended, whose provider account has published every record through its end.
  const bills = await db
    .selectFrom("volume_bills as v")
    .select(["v.volume_id", "v.org_id", "v.provider", "v.size_gb", "v.gb_month_micro_usd", "v.billed_from", "v.deleted_at", "v.settled_through"])
    .where((eb) => eb.or([eb("v.deleted_at", "is", null), eb("v.settled_through", "<", eb.ref("v.deleted_at"))]))
    .where(sql<boolean>`${periodEnd} <= ${now}`)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("billing_cursors as c")
          .select("c.provider")
          .whereRef("c.provider", "=", "v.provider")
          .where((w) => w.or([w("c.account", "=", ""), w("c.account", "=", w.ref("v.org_id"))]))
          .where(sql<boolean>`c.complete_through >= ${periodEnd}`),
      ),
    )
    .orderBy("v.settled_through")
    .limit(SETTLE_BATCH)
    .execute();
  const report: VolumeSettleReport = { due: bills.length, settled: 0, disputed: 0, failed: 0 };
  for (const bill of bills) {
    try {
      const status = await writeVolumeReceipt(db, bill, now);
      if (status) report[status]++;
    } catch (e) {
      report.failed++;
      console.error(JSON.stringify({ msg: "settling a volume's period failed; next run retries", volume: bill.volume_id, error: String(e) }));
    }
  }
  return report;
}

async function writeVolumeReceipt(db: Db, bill: VolumeBill, now: number): Promise<"settled" | "disputed" | null> {
  const period = nextVolumePeriod(bill, now);
  if (!period) return null;
  const records = await db
    .selectFrom("billing_records")
    .select(["record_id", "machine_id", "window_start", "window_end", "amount_micro_usd", "components"])
    .where("volume_id", "=", bill.volume_id)
    .where("window_start", "<", period.end)
    // A record is the period's its window begins in; the first period also takes the window the
    // volume was made in, which began before it.
    .where((eb) => (period.start === bill.billed_from ? eb("window_end", ">", period.start) : eb("window_start", ">=", period.start)))
    .orderBy("window_start")
    .orderBy("record_id")
    .execute();
  const { actual, components, windows } = sumRecords(records);
  const estimate = volumeEstimateMicros(bill, period.start, period.end);
  const status = estimate !== null && beyondTolerance(actual, estimate) ? ("disputed" as const) : ("settled" as const);
  const insert = db
    .insertInto("receipts")
    .values({
      id: newId("rc", now),
      org_id: bill.org_id,
      lease_id: null,
      volume_id: bill.volume_id,
      provider: bill.provider,
      gpu_class: null,
      status,
      actual_micro_usd: actual,
      estimate_micro_usd: estimate,
      components: JSON.stringify(components),
      windows: JSON.stringify(windows),
      billed_from: period.start,
      released_at: period.end,
      created_at: now,
    })
    // Another run got here first: its receipt stands (a receipt is written once).
    .onConflict((oc) => oc.columns(["volume_id", "billed_from"]).where("volume_id", "is not", null).doNothing());
  // The receipt first, then the bill moves on (compare-and-swap): a run that dies between the two
  // leaves a receipt the next run finds in place (nothing written twice) before moving the bill.
  await insert.execute();
  const moved = await db.updateTable("volume_bills").set({ settled_through: period.end }).where("volume_id", "=", bill.volume_id).where("settled_through", "=", period.start).executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0 ? status : null;
}
