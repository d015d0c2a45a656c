/**
 * Receipts as the API shows them: the actual amount, its parts and windows, the estimate beside it.
 * A receipt is a lease's, or a volume's for one period (`volume_id`; billed_from to released_at are
 * the period), whose estimate is null where the provider states no price (migrations/0029).
 */
import type { Db } from "../db";
import type { ReceiptsTable } from "../db/schema";
import type { Cursor } from "../pagination";
import { microsToUsd } from "./money";
import { iso } from "../time";


const COLUMNS = [
  "id",
  "org_id",
  "lease_id",
  "volume_id",
  "provider",
  "gpu_class",
  "status",
  "actual_micro_usd",
  "estimate_micro_usd",
  "components",
  "windows",
  "billed_from",
  "released_at",
  "created_at",
] as const;

/** A receipt as read for rendering: every column but the org (the caller already scoped by it). */
type ReceiptRow = Omit<ReceiptsTable, "org_id">;

interface StoredWindow {
  record_id: string;
  machine_id: string;
  window_start: number;
  window_end: number;
  amount_micro_usd: number;
}

/** `withWindows`: every record the receipt sums (single reads); lists give their count. */
export function renderReceipt(r: ReceiptRow, withWindows: boolean) {
  const windows = JSON.parse(r.windows) as StoredWindow[];
  return {
    id: r.id,
    lease_id: r.lease_id,
    volume_id: r.volume_id,
    provider: r.provider,
    gpu: r.gpu_class,
    status: r.status,
    actual_usd: microsToUsd(r.actual_micro_usd),
    estimate_usd: r.estimate_micro_usd === null ? null : microsToUsd(r.estimate_micro_usd),
    difference_usd: r.estimate_micro_usd === null ? null : microsToUsd(r.actual_micro_usd - r.estimate_micro_usd),
    components: JSON.parse(r.components) as Record<string, number>,
    window_count: windows.length,
    ...(withWindows
      ? {
          windows: windows.map((w) => ({
            record_id: w.record_id,
            machine_id: w.machine_id,
            window_start: iso(w.window_start),
            window_end: iso(w.window_end),
            amount_usd: microsToUsd(w.amount_micro_usd),
          })),
        }
      : {}),
    billed_from: iso(r.billed_from),
    released_at: iso(r.released_at),
    created_at: iso(r.created_at),
  };
}

/** One of the org's receipts; another org's answers null, like a missing one (guarantee 8). */
export async function getReceipt(db: Db, orgId: string, id: string) {
  const row = await db.selectFrom("receipts").select(COLUMNS).where("id", "=", id).where("org_id", "=", orgId).executeTakeFirst();
  return row ? renderReceipt(row, true) : null;
}

/** The org's receipts, newest first; `limit + 1` rows, for pageOf. */
export async function listReceipts(
  db: Db,
  orgId: string,
  q: { status?: "settled" | "disputed"; lease_id?: string; volume_id?: string; after: Cursor | null; limit: number },
) {
  let query = db.selectFrom("receipts").select(COLUMNS).where("org_id", "=", orgId);
  if (q.status) query = query.where("status", "=", q.status);
  if (q.lease_id) query = query.where("lease_id", "=", q.lease_id);
  if (q.volume_id) query = query.where("volume_id", "=", q.volume_id);
  if (q.after) query = query.where("id", "<", q.after.id);
  return query.orderBy("id", "desc").limit(q.limit + 1).execute();
}

/** A stored billing record as a receipt sums it. */
export interface ReceiptRecord {
  record_id: string;
  machine_id: string;
  window_start: number;
  window_end: number;
  amount_micro_usd: number;
  components: string;
}

/**
 * What a receipt holds of its records: their total, the sums of their parts (six decimals keep
 * float noise out of sums of the provider's own figures) and every window it sums. One place for a
 * lease's receipt (reconcile.ts) and a volume's (volume-receipts.ts).
 */
export function sumRecords(records: readonly ReceiptRecord[]) {
  let actual = 0;
  const components: Record<string, number> = {};
  for (const r of records) {
    actual += r.amount_micro_usd;
    for (const [k, v] of Object.entries(JSON.parse(r.components) as Record<string, number>)) components[k] = (components[k] ?? 0) + v;
  }
  for (const k of Object.keys(components)) components[k] = Math.round(components[k]! * 1e6) / 1e6;
  const windows = records.map((r) => ({ record_id: r.record_id, machine_id: r.machine_id, window_start: r.window_start, window_end: r.window_end, amount_micro_usd: r.amount_micro_usd }));
  return { actual, components, windows };
}
